/**
 * @module The presets `send` signs for whose provider sends a static secret rather than a
 * signature: HTTP Basic (Chargebee), a token in a header (Auth0, Okta, Google Calendar), in the body
 * (Microsoft Graph's `clientState`) or in the URL's query (Azure Event Grid). Batched ones send a
 * one-item batch unless `--body` holds several; those with a handshake send a normal event.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { byBasic, bySecret, bySecretWith, oneBatch, oneEvent } from './signed-with';
import type { Wired } from './wired';

/** The presets of this module, by preset factory name. */
export const STATIC_SECRETS: Readonly<Record<string, Wired>> = {
  chargebee: byBasic(kit.chargebee, oneEvent),
  auth0: bySecret(kit.auth0, 'authorization', oneBatch),
  okta: bySecret(kit.okta, 'secret', oneBatch),
  microsoftGraph: bySecret(kit.microsoftGraph, 'clientState', oneBatch),
  azureEventGrid: bySecret(kit.azureEventGrid, 'secret', oneBatch),
  // Google sends an empty body: what changed is in its headers (the event is the resource state;
  // the delivery id names the channel, so a repeated `--id` is the same message).
  googleCalendar: bySecretWith(
    'token',
    (url, token, r) => kit.googleCalendar({ url, token, channelId: r.id }),
    (signer, r) => signer.event({ resourceState: r.event }),
  ),
};
