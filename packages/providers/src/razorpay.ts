/** @module Razorpay preset: `x-razorpay-event-id` as the key, `X-Razorpay-Signature` verified on the raw body. */
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link razorpay}: `secret`, the secret set on the webhook in the Dashboard (not the
 * API key secret), or several; or `resolveSecret`, a lookup per request.
 */
export type RazorpayOptions = SecretOptions<'secret', string>;

/** A Razorpay delivery as this preset reads it: its `event` name. Razorpay's SDK types no webhook payload. */
export interface RazorpayMinimalEvent {
  readonly event: string;
}

/** Razorpay's events: any name, each a {@link RazorpayMinimalEvent}. */
export type RazorpayMinimalEvents = Record<string, RazorpayMinimalEvent>;

/**
 * Razorpay webhook preset (payments, orders, refunds, subscriptions).
 *
 * - **Key**: the `x-razorpay-event-id` header, which Razorpay sends the same on every retry of an
 *   event and tells you to deduplicate on. It is **not covered by the signature** (only the body
 *   is): a forger would need a valid signature for the body anyway, and the body carries no event
 *   id to cross-check, so a captured delivery replayed with another id runs again. Keep the
 *   handler's own state checks (an order already paid stays paid).
 * - **Signature**: `X-Razorpay-Signature` is hex HMAC-SHA256 of the raw body under the webhook
 *   secret. No timestamp is signed.
 * - **Retention**: 7 days: Razorpay retries non-2xx answers with exponential backoff for 24 hours
 *   after the event was created, then disables the webhook until you enable it again.
 *
 * @example
 * const preset = providers.razorpay({ secret: process.env.RAZORPAY_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#razorpay
 */
export function razorpay<Events extends object = RazorpayMinimalEvents>(
  options: RazorpayOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret } = requireOptions('razorpay', options);
  const { preset } = hmacPreset(
    {
      provider: 'razorpay',
      secret,
      resolveSecret,
      signatureHeader: 'x-razorpay-signature',
      key: 'x-razorpay-event-id',
      retentionDays: 7,
    },
    { names: { preset: 'razorpay', option: 'secret', what: 'the webhook secret' } },
  );
  return typed<Events>(preset, (request) => idPart(jsonBody(request)?.event));
}
