/** @module Paddle Billing preset: `event_id` as the key, `Paddle-Signature: ts=…;h1=…` over the timestamp and raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { header, jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';
import { timestampedHmac } from './timestamped-hmac';

/** Options of {@link paddle}. */
export interface PaddleOptions {
  /** The notification destination's secret key (`pdl_ntfset_…`). Required. */
  secret: string;
  /** Accepted distance between the signed `ts` and now. Defaults to 5 (the Paddle SDKs' default). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

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
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#paddle
 */
export function paddle(options: PaddleOptions): ProviderPreset {
  const { secret, toleranceSeconds, clock } = requireOptions('paddle', options);
  const key = requireString('paddle', 'secret', secret, 'the destination secret key as "secret"');
  const tolerance = toleranceOption('paddle', toleranceSeconds, 5);
  const check = timestampedHmac({
    key,
    encoding: 'hex',
    toleranceSeconds: tolerance,
    now: clockOption('paddle', clock),
  });

  return {
    provider: 'paddle',
    keyDescription: 'event_id in the body',
    needsRawBody: true,
    retentionDays: 30,
    key(request) {
      return presentExternalId(jsonBody(request)?.event_id);
    },
    verify: safeVerify(function verifyPaddle(request) {
      const value = header(request, 'paddle-signature');
      const { rawBody } = request;
      if (rawBody === undefined || value === undefined) return false;
      const { stamp, h1 } = parsePaddleSignature(value);
      return check({
        stamp,
        signatures: h1,
        signed: (signedStamp) => [`${signedStamp}:`, rawBody],
      });
    }),
  };
}
