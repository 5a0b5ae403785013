import { createHmac } from 'node:crypto';
import { WebhooksHelper } from 'square';
import { ConfigError } from '@webhook-idempotency/core';
import { square } from '../src';
import { jsonRequest } from './helpers';

const KEY = 'square-signature-key-of-ours';
const URL = 'https://shop.example.com/webhooks/square';
const body = JSON.stringify({
  merchant_id: '6SSW7HV8K2ST5',
  type: 'payment.updated',
  event_id: '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc',
  created_at: '2026-12-04T10:00:00Z',
  data: {
    type: 'payment',
    id: 'KkAkhdMsgzn59SM8A89WgKwekxLZY',
    object: { payment: { amount_money: { amount: 100 } } },
  },
});

/** What Square sends: base64 HMAC-SHA256 of the notification URL followed by the raw body. */
const sign = (text = body, url = URL, key = KEY) =>
  createHmac('sha256', key)
    .update(url + text)
    .digest('base64');

const request = (signature: string | undefined, text = body) =>
  jsonRequest(text, {
    headers: signature === undefined ? {} : { 'x-square-hmacsha256-signature': signature },
  });

describe('square preset', () => {
  const preset = square({ signatureKey: KEY, notificationUrl: URL });

  it('describes itself and keys on event_id', () => {
    expect(preset).toMatchObject({ provider: 'square', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe('6a8f5f28-54a1-4eb0-a98a-3111513fd4fc');
    expect(preset.key(request(undefined, '{"type":"payment.updated"}'))).toBeUndefined();
  });

  it("accepts what Square's SDK (WebhooksHelper.verifySignature) accepts, and refuses what it refuses", async () => {
    const judge = (signatureHeader: string, requestBody = body, notificationUrl = URL) =>
      WebhooksHelper.verifySignature({
        requestBody,
        signatureHeader,
        signatureKey: KEY,
        notificationUrl,
      });
    expect(await judge(sign())).toBe(true);
    expect(preset.verify?.(request(sign()))).toBe(true);

    const tampered = body.replace('"amount":100', '"amount":1');
    expect(await judge(sign(), tampered)).toBe(false);
    expect(preset.verify?.(request(sign(), tampered))).toBe(false);

    // Signed for another notification URL: Square's SDK and the preset refuse it alike.
    const elsewhere = sign(body, 'https://attacker.example/hook');
    expect(await judge(elsewhere)).toBe(false);
    expect(preset.verify?.(request(elsewhere))).toBe(false);

    const wrongKey = sign(body, URL, 'another key');
    expect(await judge(wrongKey)).toBe(false);
    expect(preset.verify?.(request(wrongKey))).toBe(false);
  });

  it.each([
    ['missing', undefined],
    [
      'hex instead of base64',
      createHmac('sha256', KEY)
        .update(URL + body)
        .digest('hex'),
    ],
    ['truncated', sign().slice(0, 20)],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify?.(request(signature))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{ notificationUrl: URL }, 'signatureKey'],
    [{ signatureKey: KEY }, 'notificationUrl'],
    [{ signatureKey: KEY, notificationUrl: '/webhooks/square' }, 'notificationUrl'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => square(options as never)).toThrow(ConfigError);
    expect(() => square(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
