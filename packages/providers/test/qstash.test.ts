/**
 * Upstash QStash, judged by its own SDK's `Receiver.verify` (`@upstash/qstash`) on tokens made here
 * with `node:crypto`: what it accepts the preset accepts, what it refuses the preset refuses. The
 * SDK reads the real clock, so the judged tokens are signed now.
 */
import { createHash, createHmac } from 'node:crypto';
import { Receiver } from '@upstash/qstash';
import { ConfigError } from '@webhook-idempotency/core';
import { qstash } from '../src';
import { clockAt, jsonRequest } from './helpers';

const CURRENT = 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r';
const NEXT = 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs';
const URL = 'https://example.com/api/qstash';
const body = '{"order":6735,"status":"paid"}';

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A QStash token as Upstash documents it: HS256 under the key's UTF-8 bytes. */
function token(claims: Record<string, unknown>, key = CURRENT, alg = 'HS256'): string {
  const input = `${part({ alg, typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}
function claimsAt(iat: number, more: Record<string, unknown> = {}) {
  return {
    iss: 'Upstash',
    sub: URL,
    exp: iat + 300,
    nbf: iat,
    iat,
    jti: 'jwt_1',
    body: digest(body),
    ...more,
  };
}
const request = (signature: string, text = body, id = 'msg_26hZCxZCuWyyTWPmSVBrNC1RADwm') =>
  jsonRequest(text, { headers: { 'upstash-signature': signature, 'upstash-message-id': id } });

const receiver = new Receiver({ currentSigningKey: CURRENT, nextSigningKey: NEXT });
const sdkAccepts = (signature: string, text: string) =>
  receiver.verify({ signature, body: text, url: URL }).then(
    () => true,
    () => false,
  );

describe('qstash preset', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const preset = qstash({ signingKey: [CURRENT, NEXT], url: URL });

  it('keys on Upstash-Message-Id', () => {
    expect(preset).toMatchObject({ provider: 'qstash', needsRawBody: true, retentionDays: 30 });
    expect(preset.key(request('x'))).toBe('msg_26hZCxZCuWyyTWPmSVBrNC1RADwm');
    expect(preset.key(request('x', body, ''))).toBeUndefined();
  });

  it.each([
    ['genuine, current key', () => token(claimsAt(now())), body, true],
    ['genuine, next key', () => token(claimsAt(now()), NEXT), body, true],
    [
      'body hash with padding',
      () => token(claimsAt(now(), { body: `${digest(body)}=` })),
      body,
      true,
    ],
    ['an altered body', () => token(claimsAt(now())), body.replace('paid', 'void'), false],
    ['another key', () => token(claimsAt(now()), 'sig_not_ours'), body, false],
    [
      'another endpoint',
      () => token(claimsAt(now(), { sub: 'https://example.com/other' })),
      body,
      false,
    ],
    ['another issuer', () => token(claimsAt(now(), { iss: 'Someone' })), body, false],
    ['expired', () => token(claimsAt(now() - 400)), body, false],
    ['alg none', () => `${part({ alg: 'none' })}.${part(claimsAt(now()))}.`, body, false],
    ['alg HS512 under the same key', () => hs512(claimsAt(now())), body, false],
  ])('%s: the preset agrees with Receiver.verify', async (label, make, text, expected) => {
    const signature = make();
    const verdict = await preset.verify?.(request(signature, text));
    expect(verdict).toBe(expected);
    // The SDK agrees, except on HS512, which it accepts under an HMAC key and QStash never sends.
    const hs512Case = label.startsWith('alg HS512');
    expect(await sdkAccepts(signature, text)).toBe(hs512Case ? true : expected);
  });

  it('bounds iat to the tolerance both ways, and takes a tolerance of its own', () => {
    const NOW = 1_765_000_000;
    const at = (iat: number, tolerance?: number) =>
      qstash({
        signingKey: CURRENT,
        url: URL,
        clock: clockAt(NOW),
        toleranceSeconds: tolerance,
      }).verify?.(request(token(claimsAt(iat))));
    expect([at(NOW - 299), at(NOW + 299), at(NOW - 301), at(NOW + 301)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(at(NOW + 500, 600)).toBe(true);
    const noIat = token({ ...claimsAt(NOW), iat: undefined });
    expect(
      qstash({ signingKey: CURRENT, url: URL, clock: clockAt(NOW) }).verify?.(request(noIat)),
    ).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{ url: URL }, 'signingKey'],
    [{ signingKey: CURRENT }, 'url'],
    [{ signingKey: CURRENT, url: URL, toleranceSeconds: 0 }, 'toleranceSeconds'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => qstash(options as never)).toThrow(ConfigError);
    expect(() => qstash(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

/** An HS512 token under the current key: a valid HMAC, of an algorithm QStash does not use. */
function hs512(claims: Record<string, unknown>): string {
  const input = `${part({ alg: 'HS512', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha512', CURRENT).update(input).digest('base64url')}`;
}
