/** @module Paddle Billing preset: `event_id` as the key, `Paddle-Signature: ts=…;h1=…` over the timestamp and raw body. */
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { typed, type TypedPreset } from './events';
import { clockOption, requireOptions, toleranceOption } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { firstMatch, keyring, stringSecret, type SecretOptions } from './secrets';
import { timestampedHmac } from './timestamped-hmac';

/**
 * Options of {@link paddle}: `secret`, the notification destination's secret key
 * (`pdl_ntfset_…`), or several; or `resolveSecret`, a lookup per request.
 */
export type PaddleOptions = SecretOptions<'secret', string> & {
  /** Accepted distance between the signed `ts` and now. Defaults to 5 (the Paddle SDKs' default). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/**
 * A Paddle Billing notification as this preset reads it: `event_id` (the key) and `event_type`
 * (the event name). Paddle's Node SDK types its events after converting them to camelCase, which
 * is not what the body holds, so no SDK type is offered here.
 */
export interface PaddleMinimalEvent {
  readonly event_id: string;
  readonly event_type: string;
}

/** Paddle's events: any name, each a {@link PaddleMinimalEvent}. */
export type PaddleMinimalEvents = Record<string, PaddleMinimalEvent>;

/** Parses `ts=<unix>;h1=<hex>[;h1=<hex>]`: the first `ts` as sent, and every `h1`. */
function parsePaddleSignature(value: string): { stamp: string | undefined; h1: string[] } {
  let stamp: string | undefined;
  const h1: string[] = [];
  for (const item of value.split(';')) {
    const eq = item.indexOf('=');
    if (eq === -1) continue;
    const name = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (name === 'ts' && stamp === undefined) stamp = text;
    else if (name === 'h1') h1.push(text);
  }
  return { stamp, h1 };
}

/**
 * Paddle Billing preset (PROVIDERS.md §3.9).
 *
 * - **Key**: `event_id` (`evt_…`). Paddle says to make handlers idempotent on it; one event sent to
 *   several destinations gets one `notification_id` each, but the event id is the business fact.
 * - **Pass-through**: none.
 * - **Signature**: `Paddle-Signature: ts=<unix>;h1=<hex>`, h1 = HMAC-SHA256(destination secret,
 *   `${ts}:${rawBody}`), constant time, any `h1` may match; `ts` within `toleranceSeconds` either
 *   way. The 5-second default is tight: keep server clocks in sync (NTP) or raise it.
 * - **Retention**: 30 days. Live retries run 3 days, and exhausted notifications can be replayed
 *   through Paddle's API afterwards.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.paddle({ secret: process.env.PADDLE_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_01hv8x2acma2gz9ntcb8nbj6yw'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#paddle
 */
export function paddle<Events extends object = PaddleMinimalEvents>(
  options: PaddleOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret, toleranceSeconds, clock } = requireOptions('paddle', options);
  const now = clockOption('paddle', clock);
  const ring = keyring(
    stringSecret('paddle', 'secret', 'the destination secret key', now),
    secret,
    resolveSecret,
  );
  const check = timestampedHmac({
    encoding: 'hex',
    toleranceSeconds: toleranceOption('paddle', toleranceSeconds, 5),
    now,
  });

  return typed<Events>(
    {
      provider: 'paddle',
      keyDescription: 'event_id in the body',
      needsRawBody: true,
      retentionDays: 30,
      key(request) {
        return ring.scope(request, presentExternalId(jsonBody(request)?.event_id));
      },
      verify(request) {
        return ring.verify(request, (r, keys) => {
          const value = header(r, 'paddle-signature');
          const { rawBody } = r;
          if (rawBody === undefined || value === undefined) return undefined;
          const { stamp, h1 } = parsePaddleSignature(value);
          const signature = {
            stamp,
            signatures: h1,
            signed: (signedStamp: string) => [`${signedStamp}:`, rawBody],
          };
          return firstMatch(keys, (key) => check(key, signature));
        });
      },
    },
    (request) => idPart(jsonBody(request)?.event_type),
  );
}
