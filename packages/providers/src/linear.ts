/**
 * @module Linear preset: `Linear-Delivery` as the key, `Linear-Signature` (hex HMAC-SHA256 of the
 * raw body) checked by `hmac()`, and the body's signed `webhookTimestamp` within a minute of now.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { hmac } from './hmac';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';

/** Options of {@link linear}. */
export interface LinearOptions {
  /** The webhook's signing secret (Settings, API, the webhook's page). Required. */
  secret: string;
  /**
   * Accepted distance between the body's `webhookTimestamp` and now, in seconds, either way.
   * Defaults to 60: Linear asks for a minute, and its SDK's verifier refuses anything older.
   */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/**
 * Linear webhook preset (issues, comments, projects, cycles… of a workspace or an OAuth app).
 *
 * - **Key**: the `Linear-Delivery` header, a UUID per delivery. It is **not** covered by the
 *   signature: a captured request re-sent with a fresh value passes `verify`, but only while its
 *   signed `webhookTimestamp` is within `toleranceSeconds`.
 * - **Fingerprint**: the body without `webhookTimestamp`, which a retry signs anew (a retry within
 *   Linear's one-minute window could not pass otherwise): it is replayed, not refused as another body.
 * - **Signature**: `Linear-Signature` is the hex HMAC-SHA256 of the raw body under the webhook's
 *   secret; the body's `webhookTimestamp` (milliseconds) must be within `toleranceSeconds` of now.
 * - **Retention**: 7 days. Linear retries a failed delivery a few times over hours (schedule
 *   UNCONFIRMED here).
 *
 * @example
 * const preset = providers.linear({ secret: process.env.LINEAR_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#linear
 */
export function linear(options: LinearOptions): ProviderPreset {
  const { secret, toleranceSeconds, clock } = requireOptions('linear', options);
  const tolerance = toleranceOption('linear', toleranceSeconds, 60);
  const now = clockOption('linear', clock);
  const signed = hmac({
    provider: 'linear',
    secret: requireString('linear', 'secret', secret, 'the signing secret as "secret"'),
    signatureHeader: 'linear-signature',
    key: 'linear-delivery',
    keyDescription: 'Linear-Delivery header',
    retentionDays: 7,
  });
  const signatureValid = signed.verify as (
    request: Parameters<ProviderPreset['key']>[0],
  ) => boolean;

  return {
    ...signed,
    verify: safeVerify(function verifyLinear(request) {
      if (!signatureValid(request)) return false;
      const stamp = jsonBody(request)?.webhookTimestamp;
      return (
        typeof stamp === 'number' &&
        Number.isFinite(stamp) &&
        Math.abs(now() - stamp) <= tolerance * 1000
      );
    }),
    fingerprint(request) {
      const body = jsonBody(request);
      if (body === undefined) return undefined;
      const { webhookTimestamp, ...delivery } = body;
      return canonicalFingerprint(delivery);
    },
  };
}
