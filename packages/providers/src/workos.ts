/**
 * @module WorkOS, a member of the timestamped-HMAC family whose stamp is in milliseconds, inside
 * the signature header (`WorkOS-Signature: t=<ms>, v1=<hex>`).
 */
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import type { Named } from './events';
import { bodyField, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link workos}: `secret`, the webhook endpoint's secret (WorkOS Dashboard → Webhooks),
 * or several while you replace it (any one verifies); or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 180 (the WorkOS SDKs' three minutes).
 */
export type WorkOSOptions = TimedSecretOptions<'secret'>;

/**
 * A WorkOS event as this preset reads it: its `id` (the key) and `event` (the event name). The
 * SDK's own wire-format union comes from `@webhook-idempotency/providers/types/workos`.
 */
export type WorkOSMinimalEvent = Named<'id' | 'event'>;

/** WorkOS's events without its SDK's types: any name, each a {@link WorkOSMinimalEvent}. */
export type WorkOSMinimalEvents = Record<string, WorkOSMinimalEvent>;

/**
 * WorkOS webhook preset (docs/providers.md#workos).
 *
 * - **Key**: the event's `id` (`event_01…`): a retry sends the same event.
 * - **Signature**: `WorkOS-Signature: t=<unix ms>, v1=<hex>`, v1 = HMAC-SHA256(secret,
 *   `${t}.${rawBody}`) over the raw bytes, constant time, under any of the secrets given; `t`
 *   (milliseconds) within `toleranceSeconds` of now, either way.
 * - **Events**: `eventType(request)` is the body's `event` (`user.created`); the map is
 *   {@link WorkOSMinimalEvents}, or the SDK's with `workos<WorkOSEvents>(…)`.
 * - **Retention**: 7 days. WorkOS retries for up to 3 days in production (12 tries, exponential
 *   back-off); a week covers it and a late redelivery from the dashboard.
 *
 * @example
 * const preset = providers.workos({ secret: process.env.WORKOS_WEBHOOK_SECRET! });
 * preset.key(request); // 'event_01HZ4Y7QK9W2JXM3V5T8R6N0PB'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#workos
 */
export const workos = /* @__PURE__ */ timestampedMember<WorkOSOptions, WorkOSMinimalEvents>({
  provider: 'workos',
  secret: ['secret', 'the webhook secret'],
  toleranceSeconds: 180,
  header: 'workos-signature',
  read: /* @__PURE__ */ signatureList(',', 't', 'v1'),
  stamp: 'ms',
  signed: stampDotBody,
  key: [(request) => presentExternalId(jsonBody(request)?.id), 'event id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
});
