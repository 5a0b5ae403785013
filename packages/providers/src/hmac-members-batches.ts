/**
 * @module The `hmac()` family's members whose provider sends several events in one signed
 * request (LINE's and GoCardless's `events[]`): each event is a batch item under a receipt of its own, read with
 * the `items` option. Each factory is a row of the family in `hmac-family.ts`; their types come
 * first, then the factories.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { Named } from './events';
import { hmacMember } from './hmac-family';
import { jsonBody } from './request-fields';
import { handshakeJson } from './response';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link line}: `channelSecret`, the channel secret (LINE Developers Console, the
 * channel's Basic settings), or the old and the new one while you reissue it; or `resolveSecret`,
 * a lookup per request (one channel per customer).
 */
export type LineOptions = SecretOptions<'channelSecret', string>;

/**
 * A LINE webhook event as this preset reads it: `webhookEventId` (the key) and `type` (the event
 * name). `@line/bot-sdk` types every event: `providers.line<LineEvents>(…)` with
 * `@webhook-idempotency/providers/types/line`.
 */
export type LineMinimalEvent = Named<'webhookEventId' | 'type'>;

/** LINE's event types: any name, each a {@link LineMinimalEvent}. */
export type LineMinimalEvents = Record<string, LineMinimalEvent>;

/**
 * The console's "Verify" request (and the one sent when a webhook URL is saved): a signed body
 * whose `events` is empty. Answered 200, nothing stored, the handler not run.
 */
function lineVerification(request: HttpRequest) {
  const events = jsonBody(request)?.events;
  return Array.isArray(events) && events.length === 0 ? handshakeJson(200, '{}') : undefined;
}

/**
 * LINE Messaging API webhook preset (messages, follows, postbacks… of one channel's bot).
 *
 * - **Batched**: one request carries `events[]`; each event is an item under a receipt of its own,
 *   keyed by its `webhookEventId` (a ULID). Run them with `idempotency.batch.each`. A redelivered
 *   event (webhook redelivery turned on in the console) comes back with
 *   `deliveryContext.isRedelivery: true`: that field is left out of its fingerprint, so it is
 *   replayed from its receipt, not refused as another body.
 * - **Handshake**: the verification LINE sends from the console (`events: []`, signed) is answered
 *   200 with no receipt.
 * - **Signature**: `x-line-signature` is the base64 HMAC-SHA256 of the raw body under the channel
 *   secret. No timestamp is signed. Reissuing the secret invalidates the old one at once: give
 *   both for the minutes a deploy takes.
 * - **Retention**: 7 days (the redelivery window is not published).
 *
 * @example
 * const preset = providers.line({ channelSecret: process.env.LINE_CHANNEL_SECRET! });
 * @throws {ConfigError} naming `channelSecret` when invalid.
 * @see docs/providers.md#line-messaging-api
 */
export const line = /* @__PURE__ */ hmacMember<LineOptions, LineMinimalEvents>({
  provider: 'line',
  secret: ['channelSecret', 'the channel secret'],
  signature: { signatureHeader: 'x-line-signature', encoding: 'base64' },
  items: {
    json: 'events',
    id: 'webhookEventId',
    type: 'type',
    fingerprintOmit: ['deliveryContext'],
  },
  retentionDays: 7,
  extend: () => ({ handshake: lineVerification }),
});

/**
 * Options of {@link gocardless}: `secret`, the webhook endpoint's secret (GoCardless Dashboard,
 * Developers, the endpoint), or the old and the new one while you replace it; or `resolveSecret`,
 * a lookup per request (one endpoint per customer).
 */
export type GoCardlessOptions = SecretOptions<'secret', string>;

/**
 * A GoCardless event as this preset reads it: `id` (the key, `EV…`) and `resource_type` (the
 * event name: `payments`, `mandates`…). `gocardless-nodejs` types every event:
 * `providers.gocardless<GoCardlessEvents>(…)` with `@webhook-idempotency/providers/types/gocardless`.
 */
export type GoCardlessMinimalEvent = Named<'id' | 'resource_type' | 'action'>;

/** GoCardless's resource types: any name, each a {@link GoCardlessMinimalEvent}. */
export type GoCardlessMinimalEvents = Record<string, GoCardlessMinimalEvent>;

/**
 * GoCardless webhook preset (payments, mandates, subscriptions… of one webhook endpoint).
 *
 * - **Batched**: one request carries `events[]`, events that need have nothing in common; each is
 *   an item under a receipt of its own, keyed by its `id` (`EV…`). Run them with
 *   `idempotency.batch.each`. The body's `meta.webhook_id` names the request, not an event, and
 *   is not part of any key.
 * - **Signature**: `Webhook-Signature` is the hex HMAC-SHA256 of the raw body under the endpoint's
 *   secret. No timestamp is signed. A request that fails verification is answered **498** (Token
 *   Invalid), the status GoCardless documents, with no receipt.
 * - **Retention**: 14 days (GoCardless retries a failed webhook up to 8 times at growing
 *   intervals; the whole window is not published).
 *
 * @example
 * const preset = providers.gocardless({ secret: process.env.GOCARDLESS_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#gocardless
 */
export const gocardless = /* @__PURE__ */ hmacMember<GoCardlessOptions, GoCardlessMinimalEvents>({
  provider: 'gocardless',
  secret: ['secret', "the webhook endpoint's secret"],
  signature: { signatureHeader: 'webhook-signature', encoding: 'hex' },
  items: { json: 'events', id: 'id', type: 'resource_type' },
  unauthorizedStatus: 498,
  retentionDays: 14,
});
