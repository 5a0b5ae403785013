/**
 * @module The presets `send` signs for whose provider signs with a plain hash or over chosen fields
 * rather than an HMAC of the whole body: Cloudinary, Dropbox Sign (the event's time and type),
 * T-Bank and Robokassa (fields and a password), Mandrill (its URL and form), PagerDuty (one `v1=`
 * per secret). Each under `--secret`, its provider's own secret named.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { itemsOf, need, objectOf } from './credentials';
import type { SendRequest, Wired } from './wired';

const secret = (r: SendRequest, what: string) => need(r.preset, r.credentials, 'secret', what);

/** The presets of this module, by preset factory name. */
export const FIELD_SIGNED: Readonly<Record<string, Wired>> = {
  cloudinary: {
    needs: '--secret <apiSecret>',
    sign: (r) => kit.cloudinary({ url: r.url, apiSecret: secret(r, 'apiSecret') }).event(r.payload),
  },
  dropboxSign: {
    needs: '--secret <apiKey>',
    sign: (r) =>
      kit
        .dropboxSign({ url: r.url, apiKey: secret(r, 'apiKey') })
        .event(r.event, objectOf(r.preset, r.payload)),
  },
  tbank: {
    needs: '--secret <password>',
    sign: (r) =>
      kit
        .tbank({ url: r.url, password: secret(r, 'password') })
        .event(objectOf(r.preset, r.payload) as kit.TBankNotification),
  },
  robokassa: {
    needs: '--secret <password2>',
    sign: (r) =>
      kit
        .robokassa({ url: r.url, password2: secret(r, 'password2') })
        .event(objectOf(r.preset, r.payload) as kit.RobokassaResult),
  },
  mandrill: {
    needs: '--secret <webhookKey>',
    sign: (r) =>
      kit
        .mandrill({ url: r.url, webhookKey: secret(r, 'webhookKey') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  pagerduty: {
    needs: '--secret <secret>',
    sign: (r) => kit.pagerduty({ url: r.url, secret: secret(r, 'secret') }).event(r.payload),
  },
};
