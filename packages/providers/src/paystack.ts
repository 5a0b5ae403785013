/** @module Paystack preset: the event name with its record's id as the key, `x-paystack-signature` (HMAC-SHA512) verified on the raw body. */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';

/** Options of {@link paystack}. */
export interface PaystackOptions {
  /** Your secret key (`sk_live_…` or `sk_test_…`): Paystack signs webhooks with it. Required. */
  secretKey: string;
}

/** `event:id`, or `event:reference` for a record without an id; `undefined` without either. */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const event = idPart(body?.event);
  const data = isJsonObject(body?.data) ? body.data : undefined;
  const record = idPart(data?.id) ?? idPart(data?.reference);
  return event === undefined || record === undefined ? undefined : `${event}:${record}`;
}

/**
 * Paystack webhook preset (`charge.success`, transfers, refunds, subscriptions, disputes).
 *
 * - **Key**: `event:data.id` (`charge.success:4099260516`), or `event:data.reference` when the
 *   record has no id. Paystack's events carry no event id of their own; one record reaches one
 *   event name once per state change, so the pair names the event (a `transfer.success` and a
 *   `transfer.failed` of one transfer stay two keys).
 * - **Signature**: `x-paystack-signature` is hex HMAC-SHA512 of the raw body under your secret
 *   key. No timestamp is signed.
 * - **Retention**: 7 days: in live mode Paystack retries every 3 minutes for the first 4 tries,
 *   then hourly for 72 hours (UNCONFIRMED against a stored copy of Paystack's page).
 *
 * @example
 * const preset = providers.paystack({ secretKey: process.env.PAYSTACK_SECRET_KEY! });
 * @throws {ConfigError} naming `secretKey` when invalid.
 * @see docs/providers.md#paystack
 */
export function paystack(options: PaystackOptions): ProviderPreset {
  const { secretKey } = requireOptions('paystack', options);
  return hmac({
    provider: 'paystack',
    secret: requireString('paystack', 'secretKey', secretKey, 'your secret key as "secretKey"'),
    signatureHeader: 'x-paystack-signature',
    algorithm: 'sha512',
    key: eventKey,
    keyDescription: 'event and data.id (or data.reference) in the body',
    retentionDays: 7,
  });
}
