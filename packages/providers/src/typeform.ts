/** @module Typeform preset: the body's `event_id` as the key, `Typeform-Signature: sha256=<base64>` over the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';
import { idPart, jsonBody } from './request-fields';

/** Options of {@link typeform}. */
export interface TypeformOptions {
  /** The secret set on the form's webhook (Connect, Webhooks, Edit, or `secret` in the API). Required. */
  secret: string;
}

/**
 * Typeform webhook preset (`form_response`: a form submitted).
 *
 * - **Key**: `event_id` from the body, the id of this webhook event.
 * - **Signature**: `Typeform-Signature: sha256=<base64 HMAC-SHA256(secret, rawBody)>` (base64,
 *   not hex). No timestamp is signed. A webhook without a secret sends no signature: set one.
 * - **Retention**: 7 days. Typeform retries a failed delivery; its schedule is UNCONFIRMED here.
 *
 * @example
 * const preset = providers.typeform({ secret: process.env.TYPEFORM_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#typeform
 */
export function typeform(options: TypeformOptions): ProviderPreset {
  const { secret } = requireOptions('typeform', options);
  return hmac({
    provider: 'typeform',
    secret: requireString('typeform', 'secret', secret, 'the webhook secret as "secret"'),
    signatureHeader: 'typeform-signature',
    encoding: 'base64',
    prefix: 'sha256=',
    key: (request) => idPart(jsonBody(request)?.event_id),
    keyDescription: 'event_id in the body',
    retentionDays: 7,
  });
}
