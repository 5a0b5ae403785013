import { createHmac } from 'node:crypto';
import { Webhook } from 'coinbase-commerce-node';
import { ConfigError } from '@webhook-idempotency/core';
import { coinbase } from '../src';
import { jsonRequest } from './helpers';

// The judge is Coinbase's own SDK, coinbase-commerce-node 1.0.4: Webhook.verifySigHeader throws
// a SignatureVerificationError for a signature it refuses.
const SECRET = 'coinbase-commerce-shared-secret';
const EVENT_ID = '24934862-d980-46cb-9402-43c81b0cdba6';
const delivery = (attempt: number) =>
  JSON.stringify({
    id: 'e5dd4ba6-12c3-4ba5-8f2c-6d3a1e1b9c01',
    scheduled_for: '2026-12-01T10:00:00Z',
    attempt_number: attempt,
    event: {
      id: EVENT_ID,
      resource: 'event',
      type: 'charge:confirmed',
      api_version: '2018-03-22',
      created_at: '2026-12-01T10:00:00Z',
      data: { code: '66BEOV2A', name: 'The Sovereign Individual', pricing_type: 'fixed_price' },
    },
  });
const BODY = delivery(1);
const sign = (body = BODY, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');
const request = (signature: string | undefined, body = BODY) =>
  jsonRequest(body, {
    headers: signature === undefined ? {} : { 'x-cc-webhook-signature': signature },
  });
const sdkAccepts = (body: string, signature: string) => {
  try {
    return Webhook.verifySigHeader(body, signature, SECRET);
  } catch {
    return false;
  }
};

describe('coinbase preset', () => {
  const preset = coinbase({ secret: SECRET });

  it('describes itself and keys on event.id', () => {
    expect(preset).toMatchObject({ provider: 'coinbase', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe(EVENT_ID);
    expect(preset.key(jsonRequest({ id: 'x', event: {} }))).toBeUndefined();
  });

  it("accepts what coinbase-commerce-node's verifySigHeader accepts, and refuses what it refuses", () => {
    const good = sign();
    expect(sdkAccepts(BODY, good)).toBe(true);
    expect(preset.verify?.(request(good))).toBe(true);
    const tampered = BODY.replace('fixed_price', 'no_price');
    expect(sdkAccepts(tampered, good)).toBe(false);
    expect(preset.verify?.(request(good, tampered))).toBe(false);
    const wrongKey = sign(BODY, 'another secret');
    expect(sdkAccepts(BODY, wrongKey)).toBe(false);
    expect(preset.verify?.(request(wrongKey))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('fingerprints the event alone: a retry with the next attempt_number is the same delivery', () => {
    const retry = delivery(2);
    expect(preset.fingerprint?.(request(undefined, retry))).toBe(
      preset.fingerprint?.(request(undefined)),
    );
    expect(preset.key(request(undefined, retry))).toBe(EVENT_ID);
  });

  it('throws a ConfigError naming secret', () => {
    expect(() => coinbase({ secret: '' })).toThrow(ConfigError);
  });
});
