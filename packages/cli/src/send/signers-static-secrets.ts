/**
 * @module The presets `send` signs for whose provider sends a static secret rather than a
 * signature: HTTP Basic (Chargebee), a token in a header (Auth0, Okta, Google Calendar), in the body
 * (Microsoft Graph's `clientState`) or in the URL's query (Azure Event Grid). Batched ones send a
 * one-item batch unless `--body` holds several; those with a handshake send a normal event.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { basicPair, itemsOf, need } from './credentials';
import type { SendRequest, Wired } from './wired';

const secret = (r: SendRequest, what: string) => need(r.preset, r.credentials, 'secret', what);

/** The presets of this module, by preset factory name. */
export const STATIC_SECRETS: Readonly<Record<string, Wired>> = {
  chargebee: {
    needs: '--username --password',
    sign: (r) => {
      const [username, password] = basicPair(r.preset, r.credentials);
      return kit.chargebee({ url: r.url, username, password }).event(r.payload);
    },
  },
  auth0: {
    needs: '--secret <authorization>',
    sign: (r) =>
      kit
        .auth0({ url: r.url, authorization: secret(r, 'authorization') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  okta: {
    needs: '--secret <secret>',
    sign: (r) =>
      kit.okta({ url: r.url, secret: secret(r, 'secret') }).batch(itemsOf(r.preset, r.payload)),
  },
  microsoftGraph: {
    needs: '--secret <clientState>',
    sign: (r) =>
      kit
        .microsoftGraph({ url: r.url, clientState: secret(r, 'clientState') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  azureEventGrid: {
    needs: '--secret <secret>',
    sign: (r) =>
      kit
        .azureEventGrid({ url: r.url, secret: secret(r, 'secret') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  googleCalendar: {
    // Google sends an empty body: what changed is in its headers (the event is the resource state;
    // the delivery id names the channel, so a repeated `--id` is the same message).
    needs: '--secret <token>',
    sign: (r) =>
      kit
        .googleCalendar({ url: r.url, token: secret(r, 'token'), channelId: r.id })
        .event({ resourceState: r.event }),
  },
};
