/**
 * @module Linear preset: `Linear-Delivery` as the key, `Linear-Signature` (hex HMAC-SHA256 of the
 * raw body) checked by `hmac()`, and the body's signed `webhookTimestamp` within a minute of now.
 */
import { typed, type TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { hmacPreset } from './hmac';
import { clockOption, requireOptions, toleranceOption } from './options';
import { idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link linear}: `secret`, the webhook's signing secret (Settings, API, the webhook's
 * page), or several; or `resolveSecret`, a lookup per request.
 */
export type LinearOptions = SecretOptions<'secret', string> & {
  /**
   * Accepted distance between the body's `webhookTimestamp` and now, in seconds, either way.
   * Defaults to 60: Linear asks for a minute, and its SDK's verifier refuses anything older.
   */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/**
 * A Linear delivery as this preset reads it: `type` (the entity, the event name), `action` and the
 * signed `webhookTimestamp`. `@linear/sdk` types its payloads, but ships them for ES modules only,
 * which a CommonJS consumer's declarations cannot import; none is offered here.
 */
export interface LinearMinimalEvent {
  readonly type: string;
  readonly action: string;
  readonly webhookTimestamp: number;
}

/** Linear's entity types: any name, each a {@link LinearMinimalEvent}. */
export type LinearMinimalEvents = Record<string, LinearMinimalEvent>;

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
export function linear<Events extends object = LinearMinimalEvents>(
  options: LinearOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret, toleranceSeconds, clock } = requireOptions('linear', options);
  const tolerance = toleranceOption('linear', toleranceSeconds, 60);
  const now = clockOption('linear', clock);
  const { preset } = hmacPreset(
    {
      provider: 'linear',
      secret,
      resolveSecret,
      signatureHeader: 'linear-signature',
      key: 'linear-delivery',
      keyDescription: 'Linear-Delivery header',
      retentionDays: 7,
      clock: now,
    },
    {
      names: { preset: 'linear', option: 'secret', what: 'the signing secret' },
      precheck(request) {
        const stamp = jsonBody(request)?.webhookTimestamp;
        return (
          typeof stamp === 'number' &&
          Number.isFinite(stamp) &&
          Math.abs(now() - stamp) <= tolerance * 1000
        );
      },
    },
  );

  return typed<Events>(
    {
      ...preset,
      fingerprint(request) {
        const body = jsonBody(request);
        if (body === undefined) return undefined;
        const { webhookTimestamp, ...delivery } = body;
        return canonicalFingerprint(delivery);
      },
    },
    (request) => idPart(jsonBody(request)?.type),
  );
}
