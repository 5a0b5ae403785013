/**
 * @module Revolut Merchant, a member of the timestamped-HMAC family whose stamp is in
 * milliseconds, in a header of its own (`Revolut-Request-Timestamp`), and whose signature header
 * lists one `v1=` per active signing secret.
 */
import { bodyField, header, joinedFields } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { timestampedMember } from './timestamped-family';

/**
 * Options of {@link revolut}: `signingSecret`, the webhook's signing secret (`wsk_…`, from the
 * webhook's details), or several while a rotated one has not expired; or `resolveSecret`, a
 * lookup per request (one merchant account per customer).
 *
 * `toleranceSeconds`: accepted distance between `Revolut-Request-Timestamp` and now, in seconds.
 * Defaults to 300 (Revolut's five minutes).
 */
export type RevolutOptions = TimedSecretOptions<'signingSecret'>;

/** A Revolut Merchant delivery as this preset reads it: `event` (the event name) and `order_id`. Revolut publishes no webhook types. */
export interface RevolutMinimalEvent {
  readonly event: string;
  readonly order_id: string;
}

/** Revolut Merchant's events: any name, each a {@link RevolutMinimalEvent}. */
export type RevolutMinimalEvents = Record<string, RevolutMinimalEvent>;

/** `event:order_id`; `undefined` without either. */
const orderEventKey = /* @__PURE__ */ joinedFields(':', 'event', 'order_id');

/**
 * Revolut Merchant API webhook preset (orders, payments, disputes) (docs/providers.md#revolut-merchant).
 *
 * - **Key**: a fallback, as Revolut sends no event id: `event:order_id`
 *   (`ORDER_COMPLETED:6516e61c-…`). An order reaches each state once; an event Revolut sends twice
 *   for one order (a second `ORDER_AUTHORISED` after a new authorisation) merges into one receipt.
 * - **Signature**: `Revolut-Signature: v1=<hex>[,v1=<hex>…]`, hex HMAC-SHA256(signing secret,
 *   `v1.${Revolut-Request-Timestamp}.${rawBody}`), constant time; any `v1` may match (one per
 *   active secret while a rotated one has not expired), under any of the secrets given. The
 *   timestamp (milliseconds) must be within `toleranceSeconds` of now, either way.
 * - **Retention**: 30 days (Revolut's Merchant retry schedule is not published where we read).
 *
 * @example
 * const preset = providers.revolut({ signingSecret: process.env.REVOLUT_WEBHOOK_SECRET! });
 * preset.key(request); // 'ORDER_COMPLETED:6516e61c-d279-a454-a837-bc52ce55ed49'
 * @throws {ConfigError} naming `signingSecret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#revolut-merchant
 */
export const revolut = /* @__PURE__ */ timestampedMember<RevolutOptions, RevolutMinimalEvents>({
  provider: 'revolut',
  secret: ['signingSecret', 'the webhook signing secret'],
  toleranceSeconds: 300,
  header: 'revolut-signature',
  read: (value, request) => ({
    stamp: header(request, 'revolut-request-timestamp'),
    signatures: value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.startsWith('v1='))
      .map((item) => item.slice(3)),
  }),
  stamp: 'ms',
  signed: (stamp, _, rawBody) => [`v1.${stamp}.`, rawBody],
  key: [orderEventKey, 'event and order_id in the body'],
  retentionDays: 30,
  eventType: /* @__PURE__ */ bodyField('event'),
});
