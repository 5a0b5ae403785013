/** @module Square preset: the body's `event_id` as the key, `x-square-hmacsha256-signature` over the notification URL and raw body. */
import { ConfigError } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions, requireString } from './options';
import { idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link square}: `signatureKey`, the subscription's signature key (Developer Console,
 * Webhooks, the subscription's page), or several while you rotate it; or `resolveSecret`, a lookup
 * per request.
 */
export type SquareOptions = SecretOptions<'signatureKey', string> & {
  /**
   * The notification URL exactly as configured on the subscription, `https://…`: Square signs it
   * with the body, so it must match byte for byte (a proxy in front of the app does not change
   * what Square signed). Required.
   */
  notificationUrl: string;
};

/**
 * A Square event as this preset reads it: `event_id` (the key) and `type` (the event name).
 * Square's SDK types its objects in camelCase, not as the body spells them, so none is offered.
 */
export interface SquareMinimalEvent {
  readonly event_id: string;
  readonly type: string;
}

/** Square's events: any name, each a {@link SquareMinimalEvent}. */
export type SquareMinimalEvents = Record<string, SquareMinimalEvent>;

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
export function square<Events extends object = SquareMinimalEvents>(
  options: SquareOptions,
): TypedPreset<Events> {
  const { signatureKey, resolveSecret, notificationUrl } = requireOptions('square', options);
  const url = requireString(
    'square',
    'notificationUrl',
    notificationUrl,
    'the notification URL as "notificationUrl"',
  );
  if (!/^https?:\/\/\S+$/.test(url))
    throw new ConfigError('notificationUrl', 'square() needs the full notification URL, https://…');

  const { preset } = hmacPreset(
    {
      provider: 'square',
      secret: signatureKey,
      resolveSecret,
      signatureHeader: 'x-square-hmacsha256-signature',
      encoding: 'base64',
      signedPayload: (request) => [url, request.body],
      key: (request) => idPart(jsonBody(request)?.event_id),
      keyDescription: 'event_id in the body',
      retentionDays: 7,
    },
    { names: { preset: 'square', option: 'signatureKey', what: 'the signature key' } },
  );
  return typed<Events>(preset, (request) => idPart(jsonBody(request)?.type));
}
