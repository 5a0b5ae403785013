import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { airwallex } from '../src';
import { jsonRequest } from './helpers';

// No verifier ships in Airwallex's Node SDK; the judge is Airwallex's documented formula
// ("Listen for webhook events", checking webhook signatures): x-signature is the hex
// HMAC-SHA256 of x-timestamp (Unix milliseconds) followed by the raw body, under the secret.
const SECRET = 'whsec_airwallex_test';
const NOW = 1_796_112_000_000;
const BODY = JSON.stringify({
  id: 'e5b8a1c2-7d3f-4a9e-b6c1-0f2d3e4a5b6c',
  name: 'payment_intent.succeeded',
  account_id: 'acct_2f3d',
  data: { object: { id: 'int_hkdm5', amount: 100, currency: 'USD' } },
  created_at: '2026-12-01T10:00:00+0000',
});
const sign = (stamp: string, body = BODY, secret = SECRET) =>
  createHmac('sha256', secret)
    .update(stamp + body)
    .digest('hex');
const request = (stamp: string | undefined, signature: string | undefined, body = BODY) =>
  jsonRequest(body, {
    headers: {
      ...(stamp === undefined ? {} : { 'x-timestamp': stamp }),
      ...(signature === undefined ? {} : { 'x-signature': signature }),
    },
  });

describe('airwallex preset', () => {
  const preset = airwallex({ secret: SECRET, clock: () => NOW });
  const stamp = String(NOW);

  it('keys on the event id', () => {
    expect(preset).toMatchObject({ provider: 'airwallex', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(stamp, undefined))).toBe('e5b8a1c2-7d3f-4a9e-b6c1-0f2d3e4a5b6c');
  });

  it('verifies the timestamp and body together, and refuses either changed', () => {
    expect(preset.verify?.(request(stamp, sign(stamp)))).toBe(true);
    expect(preset.verify?.(request(String(NOW + 1), sign(stamp)))).toBe(false);
    expect(preset.verify?.(request(stamp, sign(stamp), BODY.replace('100', '1000')))).toBe(false);
    expect(preset.verify?.(request(stamp, sign(stamp, BODY, 'another')))).toBe(false);
    expect(preset.verify?.(request(undefined, sign('')))).toBe(false);
    expect(preset.verify?.(request('12.5', sign('12.5')))).toBe(false);
  });

  it('checks freshness only with toleranceSeconds', () => {
    const old = String(NOW - 3_600_000);
    expect(preset.verify?.(request(old, sign(old)))).toBe(true);
    const strict = airwallex({ secret: SECRET, clock: () => NOW, toleranceSeconds: 300 });
    expect(strict.verify?.(request(old, sign(old)))).toBe(false);
    expect(strict.verify?.(request(stamp, sign(stamp)))).toBe(true);
  });

  it('throws a ConfigError naming the option', () => {
    expect(() => airwallex({ secret: '' })).toThrow(ConfigError);
    expect(() => airwallex({ secret: 'x', toleranceSeconds: -1 })).toThrow(
      expect.objectContaining({
        option: 'toleranceSeconds',
        message: expect.stringContaining('seconds, got number'),
      }),
    );
  });
});
