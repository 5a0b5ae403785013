/**
 * @module Presets whose provider signs the raw body alone and names the event in it: each is a
 * row of the `hmac()` family (`hmac-family.ts`) with that provider's header, digest and spelling.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { Named } from './events';
import { canonicalFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { bodyField, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link checkout}, {@link vercel} and {@link intercom}: `secret`, the webhook's
 * signature key or secret, or several; or `resolveSecret`, a lookup per request.
 */
export type BodySignedOptions = SecretOptions<'secret', string>;

/** A Checkout.com or Vercel event as these presets read it: `id` (the key) and `type` (the event name). */
export type BodySignedMinimalEvent = Named<'id' | 'type'>;

/** Checkout.com's or Vercel's events: any name, each a {@link BodySignedMinimalEvent}. */
export type BodySignedMinimalEvents = Record<string, BodySignedMinimalEvent>;

/** An Intercom notification as its preset reads it: `id` (the key) and `topic` (the event name). */
export type IntercomMinimalEvent = Named<'id' | 'topic'>;

/** Intercom's topics: any name, each an {@link IntercomMinimalEvent}. */
export type IntercomMinimalEvents = Record<string, IntercomMinimalEvent>;

/** The event's `type` from the JSON body. */
const typeOf = /* @__PURE__ */ bodyField('type');

/** The event's `id` from the JSON body, the key of all three. */
const eventId = /* @__PURE__ */ bodyField('id');

/** The key of Checkout.com's and Vercel's events, and what a 400 calls it when it is missing. */
const eventIdKey = [eventId, 'event id in the body'] as const;

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
export const checkout = /* @__PURE__ */ hmacMember<BodySignedOptions, BodySignedMinimalEvents>({
  provider: 'checkout',
  secret: ['secret', 'the signature key'],
  signature: { signatureHeader: 'cko-signature' },
  key: eventIdKey,
  retentionDays: 7,
  eventType: typeOf,
});

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
export const vercel = /* @__PURE__ */ hmacMember<BodySignedOptions, BodySignedMinimalEvents>({
  provider: 'vercel',
  secret: ['secret', 'the webhook secret'],
  signature: { signatureHeader: 'x-vercel-signature', algorithm: 'sha1' },
  key: eventIdKey,
  retentionDays: 7,
  eventType: typeOf,
});

/** The fingerprint of a notification without its delivery bookkeeping, which a retry may change. */
function notificationFingerprint(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  if (!isJsonObject(body)) return undefined;
  const { delivery_attempts, delivery_status, first_sent_at, ...notification } = body;
  return canonicalFingerprint(notification);
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
export const intercom = /* @__PURE__ */ hmacMember<BodySignedOptions, IntercomMinimalEvents>({
  provider: 'intercom',
  secret: ['secret', 'the app client secret'],
  signature: { signatureHeader: 'x-hub-signature', algorithm: 'sha1', prefix: 'sha1=' },
  key: [eventId, 'notification id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('topic'),
  extend: () => ({ fingerprint: notificationFingerprint }),
});
