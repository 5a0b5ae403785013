/**
 * Plaid. No SDK verifies its webhooks offline (the `plaid` client fetches the key over the
 * network), so the tokens here are made with `node:crypto` as Plaid's page describes them: an
 * ES256 JWT naming its key by `kid`, `iat`, and `request_body_sha256` the hex SHA-256 of the body.
 */
import { createHash, createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { KEY_FETCHES_PER_MINUTE } from '../src/plaid-keys';
import { plaid, type PlaidVerificationKey } from '../src';
import { clockAt, jsonRequest } from './helpers';

const NOW = 1_765_000_000;
const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const KID = '6c5516e1-92dc-479e-a8ff-5a51992e0001';
const body = JSON.stringify({
  webhook_type: 'TRANSACTIONS',
  webhook_code: 'SYNC_UPDATES_AVAILABLE',
  item_id: 'wz666MBjYWTp2PDzzggYhM6oWWmBb',
  initial_update_complete: true,
  historical_update_complete: false,
  environment: 'production',
});

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hash = (text: string) => createHash('sha256').update(text).digest('hex');
const jwkOf = (key: KeyObject, more: Partial<PlaidVerificationKey> = {}): PlaidVerificationKey =>
  ({
    ...key.export({ format: 'jwk' }),
    kid: KID,
    alg: 'ES256',
    use: 'sig',
    created_at: 1,
    expired_at: null,
    ...more,
  }) as PlaidVerificationKey;

function token(
  claims: Record<string, unknown>,
  key = pair.privateKey,
  head: object = { alg: 'ES256', kid: KID },
) {
  const input = `${part({ typ: 'JWT', ...head })}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}
const request = (jwt: string, text = body) =>
  jsonRequest(text, { headers: { 'plaid-verification': jwt } });
const claimsAt = (iat: number, text = body) => ({ iat, request_body_sha256: hash(text) });

/** A fetchKey that answers for KID with `jwk`, counting its calls. */
function fetcher(jwk: PlaidVerificationKey | undefined = jwkOf(pair.publicKey)) {
  const calls: string[] = [];
  const fetchKey = async (kid: string) => {
    calls.push(kid);
    return kid === KID ? jwk : undefined;
  };
  return { fetchKey, calls };
}

describe('plaid preset', () => {
  it('keys on type, code and the canonical body, and names TYPE.CODE', () => {
    const preset = plaid({ fetchKey: fetcher().fetchKey });
    expect(preset).toMatchObject({ provider: 'plaid', needsRawBody: true, retentionDays: 7 });
    const key = preset.key(request('x'));
    expect(key).toMatch(/^TRANSACTIONS:SYNC_UPDATES_AVAILABLE:[0-9a-f]{64}$/);
    const reordered = JSON.stringify(
      Object.fromEntries(Object.entries(JSON.parse(body)).reverse()),
    );
    expect(preset.key(request('x', reordered))).toBe(key);
    expect(preset.key(request('x', body.replace('production', 'sandbox')))).not.toBe(key);
    expect(preset.eventType(request('x'))).toBe('TRANSACTIONS.SYNC_UPDATES_AVAILABLE');
  });

  it.each([
    ['genuine', () => token(claimsAt(NOW)), body, true],
    ['an altered body', () => token(claimsAt(NOW)), body.replace('true', 'false'), false],
    ['another key under the same kid', () => token(claimsAt(NOW), other.privateKey), body, false],
    [
      'an unknown kid',
      () => token(claimsAt(NOW), pair.privateKey, { alg: 'ES256', kid: 'nope' }),
      body,
      false,
    ],
    ['no kid', () => token(claimsAt(NOW), pair.privateKey, { alg: 'ES256' }), body, false],
    ['alg HS256 keyed with the JWK', () => hs256WithKeyText(claimsAt(NOW)), body, false],
    ['iat 301 s old', () => token(claimsAt(NOW - 301)), body, false],
    ['iat 301 s ahead', () => token(claimsAt(NOW + 301)), body, false],
    ['iat 299 s old', () => token(claimsAt(NOW - 299)), body, true],
    ['no request_body_sha256', () => token({ iat: NOW }), body, false],
  ])('%s: %s', async (_label, make, text, expected) => {
    const preset = plaid({ fetchKey: fetcher().fetchKey, clock: clockAt(NOW) });
    expect(await preset.verify?.(request(make(), text))).toBe(expected);
  });

  it('fetches a key once, refuses an expired one, and remembers a failed kid for a minute', async () => {
    let now = NOW * 1000;
    const clock = () => now;
    const good = fetcher();
    const preset = plaid({ fetchKey: good.fetchKey, clock });
    const signed = () => request(token(claimsAt(Math.floor(now / 1000))));
    expect([await preset.verify?.(signed()), await preset.verify?.(signed())]).toEqual([
      true,
      true,
    ]);
    expect(good.calls).toEqual([KID]);

    const expired = fetcher(jwkOf(pair.publicKey, { expired_at: NOW - 1 }));
    const old = plaid({ fetchKey: expired.fetchKey, clock });
    expect([await old.verify?.(signed()), await old.verify?.(signed())]).toEqual([false, false]);
    expect(expired.calls).toEqual([KID]);
    now += 61_000;
    expect(await old.verify?.(signed())).toBe(false);
    expect(expired.calls).toEqual([KID, KID]);
  });

  it(`starts at most ${KEY_FETCHES_PER_MINUTE} fetches a minute for kids nobody signed with`, async () => {
    const flood = fetcher();
    const preset = plaid({ fetchKey: flood.fetchKey, clock: clockAt(NOW) });
    for (let i = 0; i < KEY_FETCHES_PER_MINUTE + 5; i++)
      await preset.verify?.(
        request(token(claimsAt(NOW), pair.privateKey, { alg: 'ES256', kid: `k${i}` })),
      );
    expect(flood.calls).toHaveLength(KEY_FETCHES_PER_MINUTE);
  });

  it('refuses, without throwing, when fetchKey throws', async () => {
    const preset = plaid({
      fetchKey: async () => Promise.reject(new Error('network')),
      clock: clockAt(NOW),
    });
    expect(await preset.verify?.(request(token(claimsAt(NOW))))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'fetchKey'],
    [{ fetchKey: 'https://production.plaid.com' }, 'fetchKey'],
    [{ fetchKey: async () => undefined, toleranceSeconds: 0 }, 'toleranceSeconds'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => plaid(options as never)).toThrow(ConfigError);
    expect(() => plaid(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

/** An HS256 token keyed with the JWK's text: an algorithm confusion attempt. */
function hs256WithKeyText(claims: Record<string, unknown>): string {
  const input = `${part({ alg: 'HS256', kid: KID, typ: 'JWT' })}.${part(claims)}`;
  const mac = createHmac('sha256', JSON.stringify(jwkOf(pair.publicKey))).update(input);
  return `${input}.${mac.digest('base64url')}`;
}
