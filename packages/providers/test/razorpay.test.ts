import { createHmac } from 'node:crypto';
import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { ConfigError } from '@webhook-idempotency/core';
import { razorpay } from '../src';
import { jsonRequest } from './helpers';

const SECRET = 'rzp_webhook_secret_9f2c';
const EVENT = 'H0xbMB9XvKgvDp';
const payload = JSON.stringify({
  entity: 'event',
  account_id: 'acc_BFQ7uQEaa7j2z7',
  event: 'payment.captured',
  contains: ['payment'],
  payload: { payment: { entity: { id: 'pay_DESlfW9H8K9uqM', amount: 100, currency: 'INR' } } },
  created_at: 1567674606,
});

/** What Razorpay sends: hex HMAC-SHA256 of the raw body under the webhook secret. */
const sign = (body = payload, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');

const request = (signature: string | undefined, body = payload, event: string | null = EVENT) =>
  jsonRequest(body, {
    headers: {
      ...(event === null ? {} : { 'x-razorpay-event-id': event }),
      ...(signature === undefined ? {} : { 'x-razorpay-signature': signature }),
    },
  });

describe('razorpay preset', () => {
  const preset = razorpay({ secret: SECRET });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'razorpay', needsRawBody: true, retentionDays: 7 });
  });

  it('keys on x-razorpay-event-id, and has no key without it', () => {
    expect(preset.key(request(undefined))).toBe(EVENT);
    expect(preset.key(request(undefined, payload, null))).toBeUndefined();
    expect(preset.key(request(undefined, payload, ''))).toBeUndefined();
  });

  it("accepts what Razorpay's own SDK (validateWebhookSignature) accepts, and refuses what it refuses", () => {
    const good = sign();
    expect(validateWebhookSignature(payload, good, SECRET)).toBe(true);
    expect(preset.verify?.(request(good))).toBe(true);

    const tampered = payload.replace('"amount":100', '"amount":1000');
    expect(validateWebhookSignature(tampered, good, SECRET)).toBe(false);
    expect(preset.verify?.(request(good, tampered))).toBe(false);

    const wrongKey = sign(payload, 'another secret');
    expect(validateWebhookSignature(payload, wrongKey, SECRET)).toBe(false);
    expect(preset.verify?.(request(wrongKey))).toBe(false);
  });

  it('checks the exact bytes: the same JSON re-serialised is refused', () => {
    const spaced = JSON.stringify(JSON.parse(payload), null, 2);
    expect(preset.verify?.(request(sign(), spaced))).toBe(false);
    expect(preset.verify?.(request(sign(spaced), spaced))).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['not hex', 'z'.repeat(64)],
    ['truncated', sign().slice(0, 63)],
    ['base64', Buffer.from(sign(), 'hex').toString('base64')],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify?.(request(signature))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => razorpay(options as never)).toThrow(ConfigError);
    expect(() => razorpay(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
