/** @module Stripe preset: `event.id` as the key, `Stripe-Signature` (t, v1) verified on the raw body. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { typed, type TypedPreset } from './events';
import { clockOption, requireOptions, toleranceOption } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { firstMatch, keyring, stringSecret, type SecretOptions } from './secrets';
import { parseUnixSeconds } from './signature';
import { timestampedHmac } from './timestamped-hmac';

/**
 * Options of {@link stripe}: `secret`, the endpoint's signing secret (`whsec_…`, used as is), or
 * several while you roll it (any one verifies, in any order); or `resolveSecret`, a lookup per
 * request (docs/providers.md#secrets-rotation-and-one-per-customer).
 */
export type StripeOptions = SecretOptions<'secret', string> & {
  /** Accepted distance between the signed timestamp `t` and now. Defaults to 300 (stripe-node's default). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/**
 * A Stripe event as this preset reads it: its `id` (the key) and `type` (the event name). Stripe's
 * own `Stripe.Event` union comes from `@webhook-idempotency/providers/types/stripe`.
 */
export interface StripeMinimalEvent {
  readonly id: string;
  readonly type: string;
}

/** Stripe's events without its SDK's types: any name, each a {@link StripeMinimalEvent}. */
export type StripeMinimalEvents = Record<string, StripeMinimalEvent>;

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
 *   per active secret while you roll it), under any of the secrets given. `t` must be within
 *   `toleranceSeconds` of now, either way.
 * - **Events**: `eventType(request)` is the event's `type`; the event map is
 *   {@link StripeMinimalEvents}, or Stripe's own with `stripe<StripeEvents>(…)` and
 *   `StripeEvents` from `@webhook-idempotency/providers/types/stripe`.
 * - **Retention**: 30 days. Live retries run for up to 3 days, and the Events API lists events of
 *   the last 30 days, the window in which you may reprocess them by hand.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_1PqRsT2eZvKYlo2C0a1b2c3d'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#stripe
 */
export function stripe<Events extends object = StripeMinimalEvents>(
  options: StripeOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret, toleranceSeconds, clock } = requireOptions('stripe', options);
  const now = clockOption('stripe', clock);
  const ring = keyring(
    stringSecret('stripe', 'secret', 'the endpoint signing secret (whsec_…)', now),
    secret,
    resolveSecret,
  );
  const check = timestampedHmac({
    encoding: 'hex',
    toleranceSeconds: toleranceOption('stripe', toleranceSeconds, 300),
    now,
  });

  return typed<Events>(
    {
      provider: 'stripe',
      keyDescription: 'event id in the body',
      needsRawBody: true,
      retentionDays: 30,
      key(request: HttpRequest) {
        return ring.scope(request, presentExternalId(jsonBody(request)?.id));
      },
      verify(request) {
        return ring.verify(request, (r, keys) => {
          const { rawBody } = r;
          const value = header(r, 'stripe-signature');
          if (rawBody === undefined || value === undefined) return undefined;
          const { stamp, v1 } = parseStripeSignature(value);
          // Stripe's libraries sign `t` as the number they parsed, so a zero-padded `t` signs without its zeros.
          const signed = {
            stamp,
            signatures: v1,
            signed: (_: string, seconds: number) => [`${seconds}.`, rawBody],
          };
          return firstMatch(keys, (key) => check(key, signed));
        });
      },
    },
    (request) => idPart(jsonBody(request)?.type),
  );
}
