/** @module Shopify preset: shop domain plus `X-Shopify-Webhook-Id` as the key, base64 HMAC of the raw body. */
import type { PresetFactory } from './events';
import { keyedPreset } from './keyed-preset';
import { oneOf, requireOptions } from './options';
import { header } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link shopify}: `secret`, the app's client secret, or both while a rotated secret
 * takes effect (up to an hour, per Shopify's docs; any one verifies, in any order); or
 * `resolveSecret`, a lookup per request (one app per customer).
 */
export type ShopifyOptions = SecretOptions<'secret', string> & {
  /**
   * What one receipt stands for. `'delivery'` keys on `X-Shopify-Webhook-Id`, unique per delivery
   * and the id Shopify's current docs say to deduplicate on. `'event'` keys on
   * `X-Shopify-Event-Id`, shared by every delivery one merchant action produces (several
   * subscriptions to one topic then count once). Defaults to `'delivery'`.
   */
  per?: 'delivery' | 'event';
};

/** A Shopify delivery's body as this preset reads it: nothing (the key and the topic are headers). */
export type ShopifyMinimalPayload = Readonly<Record<string, unknown>>;

/** Shopify's topics (`orders/create`): any name, each a {@link ShopifyMinimalPayload}. */
export type ShopifyMinimalEvents = Record<string, ShopifyMinimalPayload>;

/**
 * Shopify webhook preset (docs/providers.md#shopify).
 *
 * - **Key**: `X-Shopify-Shop-Domain:X-Shopify-Webhook-Id`
 *   (`example.myshopify.com:b54557e4-bdd9-4b37-8a5f-bf7d70bcd043`); with `per: 'event'` the
 *   `X-Shopify-Event-Id` replaces the webhook id. Scoped by shop so one app serving many shops
 *   never mixes their ids.
 * - **Pass-through**: none.
 * - **Signature**: `X-Shopify-Hmac-Sha256` = base64 HMAC-SHA256(client secret, rawBody), constant
 *   time; any configured secret may match. No timestamp is signed.
 * - **Retention**: 7 days. Shopify retries 8 times over 4 hours and warns that a delivery can,
 *   rarely, be up to a day late.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.shopify({ secret: process.env.SHOPIFY_CLIENT_SECRET! });
 * preset.key(request); // 'example.myshopify.com:b54557e4-bdd9-4b37-8a5f-bf7d70bcd043'
 * @throws {ConfigError} naming `secret` or `per` when invalid.
 * @see docs/providers.md#shopify
 */
export const shopify: PresetFactory<ShopifyOptions, ShopifyMinimalEvents> = (options) => {
  const { per } = requireOptions('shopify', options);
  const ring = stringKeyring('shopify', options, 'secret', 'the app client secret');
  const idHeader =
    oneOf('shopify', 'per', per, ['delivery', 'event'], 'delivery') === 'event'
      ? 'x-shopify-event-id'
      : 'x-shopify-webhook-id';

  return keyedPreset(ring, {
    provider: 'shopify',
    keyDescription: `X-Shopify-Shop-Domain and ${idHeader === 'x-shopify-event-id' ? 'X-Shopify-Event-Id' : 'X-Shopify-Webhook-Id'} headers`,
    needsRawBody: true,
    retentionDays: 7,
    id(request) {
      const shop = header(request, 'x-shopify-shop-domain');
      const id = header(request, idHeader);
      return shop && id ? `${shop}:${id}` : undefined;
    },
    signedWith(r, keys) {
      const given = header(r, 'x-shopify-hmac-sha256');
      const { rawBody } = r;
      if (rawBody === undefined || given === undefined) return undefined;
      return firstMatch(keys, (key) => hmacMatches(key, [rawBody], [given.trim()], 'base64'));
    },
    eventType: (request) => header(request, 'x-shopify-topic'),
  });
};
