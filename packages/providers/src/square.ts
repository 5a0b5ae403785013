/** @module Square preset: the body's `event_id` as the key, `x-square-hmacsha256-signature` over the notification URL and raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';
import { idPart, jsonBody } from './request-fields';

/** Options of {@link square}. */
export interface SquareOptions {
  /** The subscription's signature key (Developer Console, Webhooks, the subscription's page). Required. */
  signatureKey: string;
  /**
   * The notification URL exactly as configured on the subscription, `https://…`: Square signs it
   * with the body, so it must match byte for byte (a proxy in front of the app does not change
   * what Square signed). Required.
   */
  notificationUrl: string;
}

/**
 * Square webhook preset (payments, refunds, orders, invoices…).
 *
 * - **Key**: `event_id` from the body, which Square calls the idempotency value of each event
 *   notification and tells you to skip when it repeats.
 * - **Signature**: `x-square-hmacsha256-signature` is base64 HMAC-SHA256 under the signature key
 *   of the notification URL followed by the raw body. No timestamp is signed.
 * - **Retention**: 7 days. Square sends an event again when it is not acknowledged in time; its
 *   retry schedule is UNCONFIRMED here.
 *
 * @example
 * const preset = providers.square({
 *   signatureKey: process.env.SQUARE_SIGNATURE_KEY!,
 *   notificationUrl: 'https://shop.example.com/webhooks/square',
 * });
 * @throws {ConfigError} naming `signatureKey` or `notificationUrl` when invalid.
 * @see docs/providers.md#square
 */
export function square(options: SquareOptions): ProviderPreset {
  const { signatureKey, notificationUrl } = requireOptions('square', options);
  const key = requireString(
    'square',
    'signatureKey',
    signatureKey,
    'the signature key as "signatureKey"',
  );
  const url = requireString(
    'square',
    'notificationUrl',
    notificationUrl,
    'the notification URL as "notificationUrl"',
  );
  if (!/^https?:\/\/\S+$/.test(url))
    throw new ConfigError('notificationUrl', 'square() needs the full notification URL, https://…');

  return hmac({
    provider: 'square',
    secret: key,
    signatureHeader: 'x-square-hmacsha256-signature',
    encoding: 'base64',
    signedPayload: (request) => [url, request.body],
    key: (request) => idPart(jsonBody(request)?.event_id),
    keyDescription: 'event_id in the body',
    retentionDays: 7,
  });
}
