/**
 * @module Mux, a member of the timestamped-HMAC family (`mux-signature: t=<unix>,v1=<hex>`, any
 * of several `v1` may match).
 */
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import type { Named } from './events';
import { bodyField, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, timestampedMember } from './timestamped-family';

/**
 * Options of {@link mux}: `secret`, the webhook's signing secret (Settings → Webhooks), or several
 * while you roll it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 300 (the Mux SDK's five minutes).
 */
export type MuxOptions = TimedSecretOptions<'secret'>;

/**
 * A Mux event as this preset reads it: its `id` (the key) and `type` (the event name). The SDK's
 * own union comes from `@webhook-idempotency/providers/types/mux`.
 */
export type MuxMinimalEvent = Named<'id' | 'type'>;

/** Mux's events without its SDK's types: any name, each a {@link MuxMinimalEvent}. */
export type MuxMinimalEvents = Record<string, MuxMinimalEvent>;

/**
 * Mux Video webhook preset (docs/providers.md#mux).
 *
 * - **Key**: the event's `id` (a UUID): a retry sends the same event.
 * - **Signature**: `mux-signature: t=<unix>,v1=<hex>`, v1 = HMAC-SHA256(secret, `${t}.${rawBody}`),
 *   constant time; any `v1` may match, under any of the secrets given; `t` within
 *   `toleranceSeconds` of now, either way.
 * - **Events**: `eventType(request)` is the body's `type` (`video.asset.ready`); the map is
 *   {@link MuxMinimalEvents}, or the SDK's with `mux<MuxEvents>(…)`.
 * - **Retention**: 7 days (Mux's retry schedule is not published where we read; a week covers a
 *   day of retries and a late manual re-send).
 *
 * @example
 * const preset = providers.mux({ secret: process.env.MUX_WEBHOOK_SECRET! });
 * preset.key(request); // '3a56ac3d-33da-4366-855b-f592d898409d'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#mux
 */
export const mux = /* @__PURE__ */ timestampedMember<MuxOptions, MuxMinimalEvents>({
  provider: 'mux',
  secret: ['secret', 'the webhook signing secret'],
  toleranceSeconds: 300,
  header: 'mux-signature',
  read: /* @__PURE__ */ signatureList(',', 't', 'v1', true),
  // Mux's SDK signs `t` as the number it parsed, as Stripe's does.
  signed: (_, seconds, rawBody) => [`${seconds}.`, rawBody],
  key: [(request) => presentExternalId(jsonBody(request)?.id), 'event id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('type'),
});
