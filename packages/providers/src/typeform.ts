/** @module Typeform preset: the body's `event_id` as the key, `Typeform-Signature: sha256=<base64>` over the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { requireOptions, requireString } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';
import { hmacMatches } from './signature';

/** Options of {@link typeform}. */
export interface TypeformOptions {
  /** The secret set on the form's webhook (Connect, Webhooks, Edit, or `secret` in the API). Required. */
  secret: string;
}

const PREFIX = 'sha256=';

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
  const key = requireString('typeform', 'secret', secret, 'the webhook secret as "secret"');
  return {
    provider: 'typeform',
    keyDescription: 'event_id in the body',
    needsRawBody: true,
    retentionDays: 7,
    key(request) {
      return idPart(jsonBody(request)?.event_id);
    },
    verify: safeVerify(function verifyTypeform(request) {
      const given = header(request, 'typeform-signature');
      if (request.rawBody === undefined || given === undefined || !given.startsWith(PREFIX))
        return false;
      return hmacMatches(key, [request.rawBody], [given.slice(PREFIX.length)], 'base64');
    }),
  };
}
