/** @module Airwallex preset: the event `id` as the key, `x-signature` over `x-timestamp` + the raw body. */
import { ConfigError } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { clockOption, requireOptions } from './options';
import { header, idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link airwallex}: `secret`, the webhook's secret (Settings, Developer, Webhooks), or
 * several; or `resolveSecret`, a lookup per request.
 */
export type AirwallexOptions = SecretOptions<'secret', string> & {
  /**
   * Refuse an `x-timestamp` further than this from now, in seconds. Defaults to no check: whether
   * Airwallex stamps a retry anew is UNCONFIRMED, and a resent event with its first stamp would
   * be refused. The receipt still stops a replay of an id it holds.
   */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/** An Airwallex event as this preset reads it: `id` (the key) and `name` (the event name). */
export interface AirwallexMinimalEvent {
  readonly id: string;
  readonly name: string;
}

/** Airwallex's events: any name, each an {@link AirwallexMinimalEvent}. */
export type AirwallexMinimalEvents = Record<string, AirwallexMinimalEvent>;

/** `x-timestamp` is Unix time in milliseconds, digits only. */
const MILLISECONDS = /^\d{1,15}$/;

/**
 * Airwallex webhook preset (payments, payouts, FX, issuing events).
 *
 * - **Key**: the event's `id` from the body.
 * - **Signature**: `x-signature` is hex HMAC-SHA256 of `x-timestamp` (Unix milliseconds, as sent)
 *   followed by the raw body, under the webhook's secret; the stamp is covered by the signature.
 *   With `toleranceSeconds`, a stamp further from now is refused.
 * - **Success is 200 only**: Airwallex retries when it gets no answer or another status.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here; events can be re-triggered from the
 *   web app).
 *
 * @example
 * const preset = providers.airwallex({ secret: process.env.AIRWALLEX_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#airwallex
 */
export function airwallex<Events extends object = AirwallexMinimalEvents>(
  options: AirwallexOptions,
): TypedPreset<Events> {
  const o = requireOptions('airwallex', options);
  const tolerance = o.toleranceSeconds;
  if (
    tolerance !== undefined &&
    (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance <= 0)
  )
    throw new ConfigError('toleranceSeconds', 'airwallex() needs a positive number of seconds');
  const now = clockOption('airwallex', o.clock);
  const { preset } = hmacPreset(
    {
      provider: 'airwallex',
      secret: o.secret,
      resolveSecret: o.resolveSecret,
      signatureHeader: 'x-signature',
      signedPayload: (r) => [r.header('x-timestamp') ?? '', r.body],
      key: (request) => idPart(jsonBody(request)?.id),
      keyDescription: 'event id in the body',
      retentionDays: 7,
      clock: now,
    },
    {
      names: { preset: 'airwallex', option: 'secret', what: 'the webhook secret' },
      precheck(request) {
        const stamp = header(request, 'x-timestamp');
        if (stamp === undefined || !MILLISECONDS.test(stamp)) return false;
        return tolerance === undefined || Math.abs(now() - Number(stamp)) <= tolerance * 1000;
      },
    },
  );
  return typed<Events>(preset, (request) => idPart(jsonBody(request)?.name));
}
