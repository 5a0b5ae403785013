/** @module Shopify preset: shop domain plus `X-Shopify-Webhook-Id` as the key, base64 HMAC of the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { oneOf, requireOptions, requireString } from './options';
import { header } from './request-fields';
import { safeVerify } from './safe-verify';
import { hmacMatches } from './signature';

/** Options of {@link shopify}. */
export interface ShopifyOptions {
  /**
   * The app's client secret. While a rotated secret takes effect (up to an hour, per Shopify's
   * docs) pass both, new first: `[newSecret, oldSecret]`. Required.
   */
  secret: string | readonly string[];
  /**
   * What one receipt stands for. `'delivery'` keys on `X-Shopify-Webhook-Id`, unique per delivery
   * and the id Shopify's current docs say to deduplicate on. `'event'` keys on
   * `X-Shopify-Event-Id`, shared by every delivery one merchant action produces (several
   * subscriptions to one topic then count once). Defaults to `'delivery'`.
   */
  per?: 'delivery' | 'event';
}

/**
 * Shopify webhook preset (PROVIDERS.md §3.7).
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
export function shopify(options: ShopifyOptions): ProviderPreset {
  const { secret, per } = requireOptions('shopify', options);
  const secrets =
    typeof secret === 'string' || !Array.isArray(secret)
      ? [secret]
      : [...(secret as readonly unknown[])];
  if (secrets.length === 0)
    throw new ConfigError('secret', 'shopify() needs at least one client secret');
  const keys = secrets.map((s) =>
    requireString('shopify', 'secret', s, 'the app client secret as "secret"'),
  );
  const idHeader =
    oneOf('shopify', 'per', per, ['delivery', 'event'], 'delivery') === 'event'
      ? 'x-shopify-event-id'
      : 'x-shopify-webhook-id';

  return {
    provider: 'shopify',
    keyDescription: `X-Shopify-Shop-Domain and ${idHeader === 'x-shopify-event-id' ? 'X-Shopify-Event-Id' : 'X-Shopify-Webhook-Id'} headers`,
    needsRawBody: true,
    retentionDays: 7,
    key(request) {
      const shop = header(request, 'x-shopify-shop-domain');
      const id = header(request, idHeader);
      return shop && id ? `${shop}:${id}` : undefined;
    },
    verify: safeVerify(function verifyShopify(request) {
      const given = header(request, 'x-shopify-hmac-sha256');
      const { rawBody } = request;
      if (rawBody === undefined || given === undefined) return false;
      return keys.some((key) => hmacMatches(key, [rawBody], [given.trim()], 'base64'));
    }),
  };
}
