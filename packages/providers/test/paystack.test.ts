import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { paystack } from '../src';
import { jsonRequest } from './helpers';

// No verifier ships in Paystack's Node packages; the judge is Paystack's documented formula
// ("Webhooks", "Verify event origin"): x-paystack-signature is the hex HMAC-SHA512 of the raw
// body under your secret key.
const SECRET_KEY = 'sk_test_0123456789abcdef0123456789abcdef01234567';
const BODY = JSON.stringify({
  event: 'charge.success',
  data: { id: 302961, domain: 'live', status: 'success', reference: 'qTPrJoy9Bx', amount: 10000 },
});
const sign = (body = BODY, key = SECRET_KEY, algorithm = 'sha512') =>
  createHmac(algorithm, key).update(body).digest('hex');
const request = (signature: string | undefined, body = BODY) =>
  jsonRequest(body, {
    headers: signature === undefined ? {} : { 'x-paystack-signature': signature },
  });

describe('paystack preset', () => {
  const preset = paystack({ secretKey: SECRET_KEY });

  it('keys on the event name and the record id, or its reference', () => {
    expect(preset).toMatchObject({ provider: 'paystack', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe('charge.success:302961');
    expect(
      preset.key(jsonRequest({ event: 'transfer.failed', data: { reference: 'tr_ref_1' } })),
    ).toBe('transfer.failed:tr_ref_1');
    expect(preset.key(jsonRequest({ event: 'charge.success', data: {} }))).toBeUndefined();
    expect(preset.key(jsonRequest({ data: { id: 1 } }))).toBeUndefined();
  });

  it('verifies HMAC-SHA512 of the raw body, and refuses tampering, another key or digest', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), BODY.replace('10000', '1000000')))).toBe(false);
    expect(preset.verify?.(request(sign(BODY, 'sk_test_other')))).toBe(false);
    expect(preset.verify?.(request(sign(BODY, SECRET_KEY, 'sha256')))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('throws a ConfigError naming secretKey', () => {
    expect(() => paystack({ secretKey: '' })).toThrow(ConfigError);
  });
});
