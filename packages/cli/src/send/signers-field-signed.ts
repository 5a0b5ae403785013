/**
 * @module The presets `send` signs for whose provider signs with a plain hash or over chosen fields
 * rather than an HMAC of the whole body: Cloudinary, Dropbox Sign (the event's time and type),
 * T-Bank and Robokassa (fields and a password), Mandrill (its URL and form), PagerDuty (one `v1=`
 * per secret). Each under `--secret`, its provider's own secret named.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { objectOf } from './credentials';
import { bySecret, oneBatch, oneEvent } from './signed-with';
import type { Wired } from './wired';

/** The presets of this module, by preset factory name. */
export const FIELD_SIGNED: Readonly<Record<string, Wired>> = {
  cloudinary: bySecret(kit.cloudinary, 'apiSecret', oneEvent),
  dropboxSign: bySecret(kit.dropboxSign, 'apiKey', (signer, r) =>
    signer.event(r.event, objectOf(r.preset, r.payload)),
  ),
  tbank: bySecret(kit.tbank, 'password', (signer, r) =>
    signer.event(objectOf(r.preset, r.payload) as kit.TBankNotification),
  ),
  robokassa: bySecret(kit.robokassa, 'password2', (signer, r) =>
    signer.event(objectOf(r.preset, r.payload) as kit.RobokassaResult),
  ),
  mandrill: bySecret(kit.mandrill, 'webhookKey', oneBatch),
  pagerduty: bySecret(kit.pagerduty, 'secret', oneEvent),
};
