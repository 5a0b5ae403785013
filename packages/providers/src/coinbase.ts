/** @module Coinbase Commerce preset: the event id in the body as the key, `X-CC-Webhook-Signature` verified on the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link coinbase}: `secret`, the endpoint's shared secret (Settings, Webhook
 * subscriptions), or several; or `resolveSecret`, a lookup per request.
 */
export type CoinbaseOptions = SecretOptions<'secret', string>;

/** A Coinbase Commerce delivery as this preset reads it: the wrapped `event`'s `id` (the key) and `type` (the event name). */
export interface CoinbaseMinimalEvent {
  readonly event: { readonly id: string; readonly type: string };
}

/** Coinbase Commerce's events: any name, each a {@link CoinbaseMinimalEvent}. */
export type CoinbaseMinimalEvents = Record<string, CoinbaseMinimalEvent>;

/** The `event` object Coinbase Commerce wraps in each delivery. */
const eventOf = (request: Parameters<ProviderPreset['key']>[0]) => {
  const event = jsonBody(request)?.event;
  return isJsonObject(event) ? event : undefined;
};

/**
 * Coinbase Commerce webhook preset (charge events: `charge:created`, `charge:confirmed`, …).
 *
 * - **Key**: the event's id, `event.id` in the body. The delivery around it (its own `id`,
 *   `attempt_number`, `scheduled_for`) is bookkeeping of one attempt.
 * - **Fingerprint**: the `event` object alone, so a retry whose attempt number moved is replayed,
 *   not refused as another body under the same id.
 * - **Signature**: `X-CC-Webhook-Signature` is hex HMAC-SHA256 of the raw body under the shared
 *   secret (coinbase-commerce-node's `Webhook.verifySigHeader`). No timestamp is signed.
 * - **Retention**: 7 days (Coinbase retries failed deliveries; the schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.coinbase({ secret: process.env.COINBASE_COMMERCE_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#coinbase-commerce
 */
export function coinbase<Events extends object = CoinbaseMinimalEvents>(
  options: CoinbaseOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret } = requireOptions('coinbase', options);
  const { preset } = hmacPreset(
    {
      provider: 'coinbase',
      secret,
      resolveSecret,
      signatureHeader: 'x-cc-webhook-signature',
      key: (request) => idPart(eventOf(request)?.id),
      keyDescription: 'event id in the body',
      retentionDays: 7,
    },
    { names: { preset: 'coinbase', option: 'secret', what: 'the shared secret' } },
  );
  return typed<Events>(
    {
      ...preset,
      fingerprint(request) {
        const event = eventOf(request);
        return event === undefined ? undefined : canonicalFingerprint(event);
      },
    },
    (request) => idPart(eventOf(request)?.type),
  );
}
