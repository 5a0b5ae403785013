/** @module Typeform preset: the body's `event_id` as the key, `Typeform-Signature: sha256=<base64>` over the raw body. */
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link typeform}: `secret`, the secret set on the form's webhook (Connect, Webhooks,
 * Edit, or `secret` in the API), or several; or `resolveSecret`, a lookup per request.
 */
export type TypeformOptions = SecretOptions<'secret', string>;

/** A Typeform delivery as this preset reads it: `event_id` (the key) and `event_type` (the event name). */
export interface TypeformMinimalEvent {
  readonly event_id: string;
  readonly event_type: string;
}

/** Typeform's events: any name, each a {@link TypeformMinimalEvent}. */
export type TypeformMinimalEvents = Record<string, TypeformMinimalEvent>;

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
export function typeform<Events extends object = TypeformMinimalEvents>(
  options: TypeformOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret } = requireOptions('typeform', options);
  const { preset } = hmacPreset(
    {
      provider: 'typeform',
      secret,
      resolveSecret,
      signatureHeader: 'typeform-signature',
      encoding: 'base64',
      prefix: 'sha256=',
      key: (request) => idPart(jsonBody(request)?.event_id),
      keyDescription: 'event_id in the body',
      retentionDays: 7,
    },
    { names: { preset: 'typeform', option: 'secret', what: 'the webhook secret' } },
  );
  return typed<Events>(preset, (request) => idPart(jsonBody(request)?.event_type));
}
