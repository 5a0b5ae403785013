/**
 * @module The `hmac()` family's members of store platforms: WooCommerce (a base64 HMAC of the raw
 * body, a store's creation ping answered by the preset). Each factory is a row of the family in
 * `hmac-family.ts`; their types come first, then the factories.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { bodyText, header, idPart, jsonBody } from './request-fields';
import { handshakeText } from './response';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link woocommerce}: `secret`, the webhook's secret (WooCommerce, Settings, Advanced,
 * Webhooks), or several; or `resolveSecret`, a lookup per request (one store per customer: name the
 * tenant from `X-WC-Webhook-Source`, the store's URL).
 */
export type WooCommerceOptions = SecretOptions<'secret', string>;

/**
 * A WooCommerce delivery as this preset reads it: the resource's `id` (an order, product,
 * customer or coupon as the REST API returns it). The topic is the `X-WC-Webhook-Topic` header.
 */
export interface WooCommerceMinimalEvent {
  readonly id?: number;
  readonly date_modified_gmt?: string;
}

/** WooCommerce's topics (`order.created`…): any name, each a {@link WooCommerceMinimalEvent}. */
export type WooCommerceMinimalEvents = Record<string, WooCommerceMinimalEvent>;

/** The ping WooCommerce sends when a webhook is created: a form body `webhook_id=<id>`, unsigned. */
const PING = /^webhook_id=\d{1,20}$/;

/** True for WooCommerce's creation ping: its form body alone, with no signature and no topic. */
function isPing(request: HttpRequest): boolean {
  if (header(request, 'x-wc-webhook-signature') !== undefined) return false;
  if (header(request, 'x-wc-webhook-topic') !== undefined) return false;
  const text = request.rawBody?.toString('utf8') ?? bodyText(request);
  return text !== undefined && PING.test(text.trim());
}

/**
 * `topic:id:digest` (or `topic:digest` for a body without an `id`, an `action.*` topic): the
 * digest is the first 32 hex characters of the SHA-256 of the body's canonical JSON. WooCommerce's
 * delivery id is a hash of the webhook's id and the second it was sent, so two events of one
 * webhook in the same second would share it; the signed body tells them apart.
 */
function wooKey(request: HttpRequest): string | undefined {
  const topic = header(request, 'x-wc-webhook-topic');
  const body = jsonBody(request);
  if (topic === undefined || body === undefined) return undefined;
  const digest = canonicalFingerprint(body).slice(0, 32);
  const id = idPart(body.id);
  return id === undefined ? `${topic}:${digest}` : `${topic}:${id}:${digest}`;
}

/** WooCommerce's row adds the creation ping: verified as itself, answered 200, never stored. */
function wooPing(preset: ProviderPreset): Partial<ProviderPreset> {
  return {
    async verify(request) {
      if (isPing(request)) return true;
      return (await preset.verify?.(request)) === true;
    },
    handshake: (request) => (isPing(request) ? handshakeText(200, '') : undefined),
  };
}

/**
 * WooCommerce webhook preset (order, product, customer and coupon topics, `action.*` topics).
 *
 * - **Key**: `topic:id:digest`, the `X-WC-Webhook-Topic` header, the resource's `id` and a
 *   SHA-256 digest of the canonical body (a fallback: WooCommerce's `X-WC-Webhook-Delivery-ID`
 *   is a hash of the webhook's id and the current second, so two events of one webhook sent in
 *   the same second share it). The same state of a resource sent twice (a hook fired twice for one
 *   save) is one key; two different states are two. The topic header is not signed.
 * - **Handshake**: creating a webhook sends an unsigned POST with the form body `webhook_id=<id>`
 *   and no `X-WC-*` headers; WooCommerce activates the webhook only on a 200. The preset answers
 *   it 200 itself, with no receipt and without your handler.
 * - **Signature**: `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the raw body under the
 *   webhook's secret. No timestamp is signed.
 * - **Retention**: 7 days. WooCommerce does not retry a failed delivery; it disables the webhook
 *   after more than five failures in a row.
 *
 * @example
 * const preset = providers.woocommerce({ secret: process.env.WOOCOMMERCE_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#woocommerce
 */
export const woocommerce = /* @__PURE__ */ hmacMember<WooCommerceOptions, WooCommerceMinimalEvents>(
  {
    provider: 'woocommerce',
    secret: ['secret', 'the webhook secret'],
    signature: { signatureHeader: 'x-wc-webhook-signature', encoding: 'base64' },
    key: [wooKey, 'X-WC-Webhook-Topic header and a JSON body'],
    retentionDays: 7,
    eventType: (request) => header(request, 'x-wc-webhook-topic'),
    extend: wooPing,
  },
);
