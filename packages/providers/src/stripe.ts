/** @module Stripe preset: `event.id` as the key, `Stripe-Signature` (t, v1) verified on the raw body. */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { header, jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';
import { parseUnixSeconds } from './signature';
import { timestampedHmac } from './timestamped-hmac';

/** Options of {@link stripe}. */
export interface StripeOptions {
  /** The endpoint's signing secret (`whsec_…`), used as is. Required. */
  secret: string;
  /** Accepted distance between the signed timestamp `t` and now. Defaults to 300 (stripe-node's default). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/** The parts of a `Stripe-Signature` header this preset uses. */
interface StripeSignature {
  /** The first `t` that is Unix seconds, as sent. */
  stamp: string | undefined;
  /** Every `v1`. */
  v1: string[];
}

/** Parses `t=…,v1=…[,v1=…][,v0=…]`; other schemes are ignored, and so is a `t` that is not Unix seconds. */
function parseStripeSignature(value: string): StripeSignature {
  let stamp: string | undefined;
  const v1: string[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq === -1) continue;
    const name = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (name === 't' && stamp === undefined && parseUnixSeconds(text) !== undefined) stamp = text;
    else if (name === 'v1') v1.push(text);
  }
  return { stamp, v1 };
}

/**
 * Stripe webhook preset (PROVIDERS.md §3.4).
 *
 * - **Key**: the event's `id` (`evt_…`): every retry of an event carries the same event object.
 *   An `id` that is present but not a string or safe integer answers 400
 *   `ERR_IDEMPOTENCY_KEY_INVALID`, a missing one `ERR_IDEMPOTENCY_KEY_MISSING`.
 * - **Pass-through**: none.
 * - **Signature**: `Stripe-Signature: t=<unix>,v1=<hex>`; the expected value is hex
 *   HMAC-SHA256(secret, `${t}.${rawBody}`) over the raw bytes; any `v1` may match (Stripe sends one
 *   per active secret while you roll it). `t` must be within `toleranceSeconds` of now, either way.
 * - **Retention**: 30 days. Live retries run for up to 3 days, and the Events API lists events of
 *   the last 30 days, the window in which you may reprocess them by hand.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_1PqRsT2eZvKYlo2C0a1b2c3d'
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#stripe
 */
export function stripe(options: StripeOptions): ProviderPreset {
  const { secret, toleranceSeconds, clock } = requireOptions('stripe', options);
  const key = requireString(
    'stripe',
    'secret',
    secret,
    'the endpoint signing secret (whsec_…) as "secret"',
  );
  const tolerance = toleranceOption('stripe', toleranceSeconds, 300);
  const check = timestampedHmac({
    key,
    encoding: 'hex',
    toleranceSeconds: tolerance,
    now: clockOption('stripe', clock),
  });

  return {
    provider: 'stripe',
    keyDescription: 'event id in the body',
    needsRawBody: true,
    retentionDays: 30,
    key(request: HttpRequest) {
      return presentExternalId(jsonBody(request)?.id);
    },
    verify: safeVerify(function verifyStripe(request) {
      const { rawBody } = request;
      const value = header(request, 'stripe-signature');
      if (rawBody === undefined || value === undefined) return false;
      const { stamp, v1 } = parseStripeSignature(value);
      // Stripe's libraries sign `t` as the number they parsed, so a zero-padded `t` signs without its zeros.
      return check({
        stamp,
        signatures: v1,
        signed: (_stamp, seconds) => [`${seconds}.`, rawBody],
      });
    }),
  };
}
