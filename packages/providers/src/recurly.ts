/**
 * @module Recurly, a member of the timestamped-HMAC family whose header is a millisecond stamp
 * followed by one or more hex signatures (`recurly-signature: <ms>,<hex>[,<hex>…]`).
 */
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { joinedFields, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link recurly}: `secret`, the webhook endpoint's secret key (Webhook Endpoints
 * page), or several while you regenerate it; or `resolveSecret`, a lookup per request (one site
 * per customer).
 *
 * `toleranceSeconds`: accepted distance between the signed stamp and now, in seconds. Defaults to
 * 300 (Recurly's Go client's five minutes).
 */
export type RecurlyOptions = TimedSecretOptions<'secret'>;

/**
 * A Recurly JSON notification as this preset reads it: its `id` (the key), `object_type` and
 * `event_type` (together the event name). The `recurly` package types its API, not the notifications.
 */
export type RecurlyMinimalEvent = {
  readonly id: string;
  readonly object_type: string;
  readonly event_type: string;
};

/** Recurly's notifications: any name (`account.created`), each a {@link RecurlyMinimalEvent}. */
export type RecurlyMinimalEvents = Record<string, RecurlyMinimalEvent>;

/** `object_type.event_type` (`account.created`); `undefined` without either. */
const notificationName = /* @__PURE__ */ joinedFields('.', 'object_type', 'event_type');

/**
 * Recurly webhook preset, JSON notifications (docs/providers.md#recurly).
 *
 * - **Key**: the notification's `id`: a retry resends the same notification.
 * - **Signature**: `recurly-signature: <ms>,<hex>[,<hex>…]`, each hex = HMAC-SHA256(secret,
 *   `${ms}.${rawBody}`), constant time; any listed signature may match (both keys sign for 24
 *   hours after a regeneration), under any of the secrets given. The stamp, in milliseconds,
 *   must be within `toleranceSeconds` of now, either way. XML notifications are not signed and
 *   are refused.
 * - **Events**: `eventType(request)` is `object_type.event_type` (`account.created`).
 * - **Retention**: 7 days (Recurly retries 10 times over about 9 hours).
 *
 * @example
 * const preset = providers.recurly({ secret: process.env.RECURLY_WEBHOOK_SECRET! });
 * preset.key(request); // 'rjxwmwedwqug'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#recurly
 */
export const recurly = /* @__PURE__ */ timestampedMember<RecurlyOptions, RecurlyMinimalEvents>({
  provider: 'recurly',
  secret: ['secret', 'the webhook endpoint secret key'],
  toleranceSeconds: 300,
  header: 'recurly-signature',
  read: (value) => {
    const [stamp, ...signatures] = value.split(',').map((item) => item.trim());
    return { stamp, signatures };
  },
  stamp: 'ms',
  signed: stampDotBody,
  key: [(request) => presentExternalId(jsonBody(request)?.id), 'notification id in the body'],
  retentionDays: 7,
  eventType: notificationName,
});
