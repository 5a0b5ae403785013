import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { shopify } from '../src';
import { jsonRequest } from './helpers';

const SECRET = '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';
const SHOP = 'example.myshopify.com';
const WEBHOOK_ID = 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043';
const EVENT_ID = '98880550-7158-44d4-b7cd-2c97c8a091b5';

const payload = JSON.stringify({
  id: 820982911946154500,
  email: 'jon@example.com',
  total_price: '403.00',
  currency: 'USD',
  financial_status: 'paid',
  line_items: [{ id: 866550311766439000, title: 'IPod Nano - 8GB', quantity: 1, price: '199.00' }],
});

/** Shopify's documented formula computed directly: base64 HMAC-SHA256 of the raw body. */
const hmacOf = (body: string, secret = SECRET) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

const request = (
  signature: string | undefined,
  body = payload,
  extra: Record<string, string> = {},
) =>
  jsonRequest(body, {
    headers: {
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': SHOP,
      'x-shopify-webhook-id': WEBHOOK_ID,
      'x-shopify-event-id': EVENT_ID,
      'x-shopify-triggered-at': '2024-05-14T10:31:05.000Z',
      ...(signature === undefined ? {} : { 'x-shopify-hmac-sha256': signature }),
      ...extra,
    },
  });

describe('shopify preset', () => {
  const preset = shopify({ secret: SECRET });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'shopify', needsRawBody: true, retentionDays: 7 });
    expect(preset.passThrough).toBeUndefined();
  });

  describe('key', () => {
    it('is shop:X-Shopify-Webhook-Id by default', () => {
      expect(preset.key(request(undefined))).toBe(`${SHOP}:${WEBHOOK_ID}`);
    });

    it("is shop:X-Shopify-Event-Id with per: 'event'", () => {
      expect(shopify({ secret: SECRET, per: 'event' }).key(request(undefined))).toBe(
        `${SHOP}:${EVENT_ID}`,
      );
    });

    it('is undefined without the shop or the id', () => {
      expect(
        preset.key(jsonRequest(payload, { headers: { 'x-shopify-webhook-id': WEBHOOK_ID } })),
      ).toBeUndefined();
      expect(
        preset.key(jsonRequest(payload, { headers: { 'x-shopify-shop-domain': SHOP } })),
      ).toBeUndefined();
    });
  });

  describe('verify', () => {
    it('accepts the base64 HMAC of the raw body', () => {
      expect(preset.verify?.(request(hmacOf(payload)))).toBe(true);
    });

    it('accepts either secret during a rotation', () => {
      const rotating = shopify({ secret: ['shpss_new', SECRET] });
      expect(rotating.verify?.(request(hmacOf(payload)))).toBe(true);
      expect(rotating.verify?.(request(hmacOf(payload, 'shpss_new')))).toBe(true);
      expect(rotating.verify?.(request(hmacOf(payload, 'shpss_other')))).toBe(false);
    });

    it('rejects a wrong secret', () => {
      expect(preset.verify?.(request(hmacOf(payload, 'another')))).toBe(false);
    });

    it('rejects a tampered body', () => {
      expect(preset.verify?.(request(hmacOf(payload), payload.replace('403.00', '4.03')))).toBe(
        false,
      );
    });

    it.each([
      ['missing', undefined],
      ['hex instead of base64', createHmac('sha256', SECRET).update(payload).digest('hex')],
      ['truncated', hmacOf(payload).slice(0, -2)],
      ['empty', ''],
    ])('rejects a signature that is %s', (_label, signature) => {
      expect(preset.verify?.(request(signature))).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secret'],
      [{ secret: '' }, 'secret'],
      [{ secret: [] }, 'secret'],
      [{ secret: [SECRET, ''] }, 'secret'],
      [{ secret: SECRET, per: 'shop' }, 'per'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => shopify(options as never)).toThrow(ConfigError);
      expect(() => shopify(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
