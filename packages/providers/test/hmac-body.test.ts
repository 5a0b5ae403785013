import { createHmac } from 'node:crypto';
import { ConfigError, defaultFingerprint } from '@webhook-idempotency/core';
import { canonicalFingerprint } from '../src/fingerprint';
import { hmac, type HmacOptions } from '../src';
import { jsonRequest, oneTenant } from './helpers';

const SECRET = 'body secret';
const options: HmacOptions = {
  provider: 'acme-body',
  secret: SECRET,
  signatureHeader: 'x-acme-signature',
  key: { json: 'meta.delivery.id' },
  retentionDays: 3,
};
const signed = (payload: unknown) => {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return jsonRequest(text, {
    headers: { 'x-acme-signature': createHmac('sha256', SECRET).update(text).digest('hex') },
  });
};

describe('hmac({ key: { json } }): the delivery id in the signed JSON body', () => {
  it.each([
    [{ meta: { delivery: { id: 'd-1' } } }, 'd-1'],
    [{ meta: { delivery: { id: 42 } } }, '42'],
    [{ meta: { delivery: {} } }, undefined],
    [{ meta: 'not an object' }, undefined],
    ['not json', undefined],
  ])('reads %j as %p', (payload, key) => {
    const request = signed(payload);
    const preset = hmac(options);
    expect(preset.verify?.(request)).toBe(true);
    expect(preset.key(request)).toBe(key);
  });

  it('names the field when it is missing, and reads a body a JSON parser already parsed', () => {
    const preset = hmac(options);
    expect(preset.keyDescription).toBe('meta.delivery.id field of the JSON body');
    const parsed = jsonRequest({ meta: { delivery: { id: 'p-1' } } }, { parsed: true });
    expect(preset.key(parsed)).toBe('p-1');
  });

  it('scopes the id by the tenant that verified the request, as a header key is', async () => {
    const preset = hmac({
      ...options,
      ...oneTenant('t1', SECRET),
    });
    const request = signed({ meta: { delivery: { id: 'd-1' } } });
    const tenanted = { ...request, headers: { ...request.headers, 'x-tenant': 't1' } };
    expect(await preset.verify?.(tenanted)).toBe(true);
    expect(preset.key(tenanted)).toBe('t1:d-1');
  });
});

describe('hmac({ fingerprintOmit }): fields a retry changes, out of the fingerprint', () => {
  const preset = hmac({ ...options, fingerprintOmit: ['meta.attempt', 'sentAt'] });
  const body = (attempt: number, amount = 10) => ({
    meta: { delivery: { id: 'd-1' }, attempt },
    sentAt: `2026-12-0${attempt}`,
    amount,
  });

  it('gives two attempts of one delivery one fingerprint, and another body another', () => {
    const first = preset.fingerprint?.(signed(body(1)));
    expect(first).toBe(canonicalFingerprint({ meta: { delivery: { id: 'd-1' } }, amount: 10 }));
    expect(preset.fingerprint?.(signed(body(2)))).toBe(first);
    expect(preset.fingerprint?.(signed(body(1, 11)))).not.toBe(first);
  });

  it('leaves a path that is absent or crosses a non-object as it is, and a non-JSON body to the default', () => {
    const plain = { meta: 'text', amount: 1 };
    expect(preset.fingerprint?.(signed(plain))).toBe(canonicalFingerprint(plain));
    const text = signed('not json');
    expect(preset.fingerprint?.(text)).toBe(defaultFingerprint(text));
  });

  it('has no fingerprint of its own without the option (the engine hashes the raw body)', () => {
    expect(hmac(options).fingerprint).toBeUndefined();
  });
});

it.each([
  [{ key: { json: '' } }, 'key.json'],
  [{ key: { json: 'a..b' } }, 'key.json'],
  [{ key: { path: 'a' } }, 'key'],
  [{ fingerprintOmit: 'meta.attempt' }, 'fingerprintOmit'],
  [{ fingerprintOmit: [] }, 'fingerprintOmit'],
  [{ fingerprintOmit: ['meta.'] }, 'fingerprintOmit'],
])('refuses %j, naming %s', (bad, option) => {
  const build = () => hmac({ ...options, ...(bad as Partial<HmacOptions>) });
  expect(build).toThrow(ConfigError);
  expect(build).toThrow(expect.objectContaining({ option }));
});
