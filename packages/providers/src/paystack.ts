/** @module Paystack preset: the event name with its record's id as the key, `x-paystack-signature` (HMAC-SHA512) verified on the raw body. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link paystack}: `secretKey`, your secret key (`sk_live_…` or `sk_test_…`, which
 * Paystack signs webhooks with), or several while you roll it; or `resolveSecret`, a lookup per
 * request.
 */
export type PaystackOptions = SecretOptions<'secretKey', string>;

/** A Paystack delivery as this preset reads it: `event` (the event name) and the record's `data.id` or `data.reference`. */
export interface PaystackMinimalEvent {
  readonly event: string;
  readonly data: { readonly id?: number | string; readonly reference?: string };
}

/** Paystack's events: any name, each a {@link PaystackMinimalEvent}. */
export type PaystackMinimalEvents = Record<string, PaystackMinimalEvent>;

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
export function paystack<Events extends object = PaystackMinimalEvents>(
  options: PaystackOptions,
): TypedPreset<Events> {
  const { secretKey, resolveSecret } = requireOptions('paystack', options);
  const { preset } = hmacPreset(
    {
      provider: 'paystack',
      secret: secretKey,
      resolveSecret,
      signatureHeader: 'x-paystack-signature',
      algorithm: 'sha512',
      key: eventKey,
      keyDescription: 'event and data.id (or data.reference) in the body',
      retentionDays: 7,
    },
    { names: { preset: 'paystack', option: 'secretKey', what: 'your secret key' } },
  );
  return typed<Events>(preset, (request) => idPart(jsonBody(request)?.event));
}
