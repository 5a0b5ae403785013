import { createHash, createHmac } from 'node:crypto';
import { ConfigError, type HttpRequest } from '@webhook-idempotency/core';
import { woocommerce } from '../src';
import { formRequest, jsonRequest } from './helpers';

// WooCommerce publishes no JavaScript verifier or example vector: the digest below is its
// documented formula (and its source's), computed with node:crypto: base64 HMAC-SHA256 of the body.
const SECRET = 'woo webhook secret';
const order = (status = 'processing') =>
  JSON.stringify({ id: 727, status, date_modified_gmt: '2026-12-01T10:00:00' });
const sign = (text: string, secret = SECRET) =>
  createHmac('sha256', secret).update(text).digest('base64');
const signed = (text: string, signature = sign(text), topic = 'order.updated') =>
  jsonRequest(text, {
    headers: {
      'x-wc-webhook-signature': signature,
      'x-wc-webhook-topic': topic,
      'x-wc-webhook-delivery-id': 'a1b2c3',
    },
  });
const ping = (headers: Record<string, string> = {}, parsed = false): HttpRequest =>
  formRequest('webhook_id=12', { headers, parsed });
const digest = (text: string) =>
  createHash('sha256')
    .update(JSON.stringify(JSON.parse(text), Object.keys(JSON.parse(text)).sort()))
    .digest('hex')
    .slice(0, 32);

describe('woocommerce preset', () => {
  const preset = woocommerce({ secret: SECRET });

  it('keys on topic, resource id and a digest of the signed body; names the topic; keeps 7 days', () => {
    expect(preset).toMatchObject({ provider: 'woocommerce', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(signed(order()))).toBe(`order.updated:727:${digest(order())}`);
    expect(preset.eventType(signed(order()))).toBe('order.updated');
    // The delivery id is not part of the key: a second send of one state is one key…
    const again = jsonRequest(order(), {
      headers: { ...signed(order()).headers, 'x-wc-webhook-delivery-id': 'other' },
    });
    expect(preset.key(again)).toBe(preset.key(signed(order())));
    // …and two states of one order in the same second (one delivery id) are two.
    expect(preset.key(signed(order('completed')))).not.toBe(preset.key(signed(order())));
    const action = JSON.stringify({ action: 'woocommerce_add_to_cart', arg: 'k1' });
    expect(preset.key(signed(action, sign(action), 'action.woocommerce_add_to_cart'))).toBe(
      `action.woocommerce_add_to_cart:${digest(action)}`,
    );
    expect(preset.key(jsonRequest(order()))).toBeUndefined();
  });

  it('accepts the documented signature; refuses an altered body, another secret, hex, or none', async () => {
    expect(await preset.verify?.(signed(order()))).toBe(true);
    expect(await preset.verify?.(signed(order('completed'), sign(order())))).toBe(false);
    expect(await preset.verify?.(signed(order(), sign(order(), 'other')))).toBe(false);
    const hex = createHmac('sha256', SECRET).update(order()).digest('hex');
    expect(await preset.verify?.(signed(order(), hex))).toBe(false);
    expect(await preset.verify?.(jsonRequest(order()))).toBe(false);
  });

  it('answers the creation ping 200 itself; a ping with a signature or a topic is a delivery (refused unsigned)', async () => {
    for (const parsed of [false, true]) {
      expect(await preset.verify?.(ping({}, parsed))).toBe(true);
      expect(preset.handshake?.(ping({}, parsed))).toMatchObject({ status: 200 });
    }
    expect(preset.handshake?.(signed(order()))).toBeUndefined();
    for (const lookalike of [
      ping({ 'x-wc-webhook-signature': sign('webhook_id=12', 'other') }),
      ping({ 'x-wc-webhook-topic': 'order.updated' }),
    ]) {
      expect(preset.handshake?.(lookalike)).toBeUndefined();
      expect(await preset.verify?.(lookalike)).toBe(false);
    }
    for (const notPing of [formRequest('webhook_id=12&x=1'), formRequest({ webhook_id: 'x' })]) {
      expect(await preset.verify?.(notPing)).toBe(false);
      expect(preset.handshake?.(notPing)).toBeUndefined();
    }
  });

  it('takes several secrets (a webhook recreated)', async () => {
    const both = woocommerce({ secret: ['old secret', SECRET] });
    expect(await both.verify?.(signed(order(), sign(order(), 'old secret')))).toBe(true);
    expect(await both.verify?.(signed(order()))).toBe(true);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => woocommerce(options as never)).toThrow(ConfigError);
    expect(() => woocommerce(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
