/**
 * @module Presets whose provider signs the raw body alone and names the event in it: each is the
 * `hmac()` builder with that provider's header, digest, spelling and retention.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';

/** Options of {@link checkout}, {@link vercel} and {@link intercom}. */
export interface BodySignedOptions {
  /** The webhook's signature key or secret. Required. */
  secret: string;
}

/** The event's `id` from the JSON body. */
const eventId = (request: Parameters<ProviderPreset['key']>[0]) => idPart(jsonBody(request)?.id);

/**
 * Checkout.com webhook preset (payment lifecycle, disputes, balances).
 *
 * - **Key**: the event's `id` (`evt_…`) from the body. Checkout.com sends every webhook at least
 *   once and retries on failure, in no guaranteed order.
 * - **Signature**: `Cko-Signature` is hex HMAC-SHA256 of the raw body under the webhook's
 *   signature key. No timestamp is signed. (The optional `Authorization` header key you can also
 *   set is a shared secret, not checked here.)
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here).
 *
 * @example
 * const preset = providers.checkout({ secret: process.env.CKO_WEBHOOK_SIGNATURE_KEY! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#checkoutcom-vercel-and-intercom
 */
export function checkout(options: BodySignedOptions): ProviderPreset {
  const { secret } = requireOptions('checkout', options);
  return hmac({
    provider: 'checkout',
    secret: requireString('checkout', 'secret', secret, 'the signature key as "secret"'),
    signatureHeader: 'cko-signature',
    key: eventId,
    keyDescription: 'event id in the body',
    retentionDays: 7,
  });
}

/**
 * Vercel webhook preset (deployments, projects, domains; account webhooks and integrations).
 *
 * - **Key**: the event's `id` from the body.
 * - **Signature**: `x-vercel-signature` is hex HMAC-SHA1 of the raw body, under the webhook's
 *   secret (shown once when the webhook is created) or, for an integration, its Client Secret.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here).
 *
 * @example
 * const preset = providers.vercel({ secret: process.env.VERCEL_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#checkoutcom-vercel-and-intercom
 */
export function vercel(options: BodySignedOptions): ProviderPreset {
  const { secret } = requireOptions('vercel', options);
  return hmac({
    provider: 'vercel',
    secret: requireString('vercel', 'secret', secret, 'the webhook secret as "secret"'),
    signatureHeader: 'x-vercel-signature',
    algorithm: 'sha1',
    key: eventId,
    keyDescription: 'event id in the body',
    retentionDays: 7,
  });
}

/**
 * Intercom webhook preset (conversation, contact and ticket topics of the Developer Hub).
 *
 * - **Key**: the notification's `id` (`notif_…`) from the body.
 * - **Fingerprint**: the body without its delivery bookkeeping (`delivery_attempts`,
 *   `delivery_status`, `first_sent_at`), which a retry may change (UNCONFIRMED whether it does):
 *   a retry is then replayed, not refused as another body under the same id.
 * - **Signature**: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the raw body>` under the app's client
 *   secret (Developer Hub, Basic Info). No timestamp is signed. The `ping` Intercom sends when a
 *   webhook is saved is a delivery like the others: answer it 2xx.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here).
 *
 * @example
 * const preset = providers.intercom({ secret: process.env.INTERCOM_CLIENT_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#checkoutcom-vercel-and-intercom
 */
export function intercom(options: BodySignedOptions): ProviderPreset {
  const { secret } = requireOptions('intercom', options);
  const preset = hmac({
    provider: 'intercom',
    secret: requireString('intercom', 'secret', secret, 'the app client secret as "secret"'),
    signatureHeader: 'x-hub-signature',
    algorithm: 'sha1',
    prefix: 'sha1=',
    key: eventId,
    keyDescription: 'notification id in the body',
    retentionDays: 7,
  });
  return {
    ...preset,
    fingerprint(request) {
      const body = jsonBody(request);
      if (!isJsonObject(body)) return undefined;
      const { delivery_attempts, delivery_status, first_sent_at, ...notification } = body;
      return canonicalFingerprint(notification);
    },
  };
}
