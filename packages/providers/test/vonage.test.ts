/**
 * Vonage (Messages API signed webhooks). `@vonage/jwt`'s `verifySignature` judges the token:
 * the preset accepts only tokens it accepts. It checks the token alone, so the body's
 * `payload_hash` and the `iat` window are the preset's own checks, held against a hex SHA-256
 * computed here.
 */
import { createHash, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { verifySignature } from '@vonage/jwt';
import { ConfigError } from '@webhook-idempotency/core';
import { vonage } from '../src';
import { clockAt, jsonRequest } from './helpers';

const SECRET = 'vonage-signature-secret-of-32-bytes!';
const NOW = 1_765_000_000;
const body = JSON.stringify({
  message_uuid: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001',
  to: '447700900000',
  from: '447700900001',
  timestamp: '2026-12-06T10:00:00Z',
  status: 'delivered',
  channel: 'sms',
});

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** A Vonage token as its webhooks carry it: HS256 under the signature secret. */
function token(claims: Record<string, unknown>, key = SECRET): string {
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}
const claimsAt = (iat: number, more: Record<string, unknown> = {}) => ({
  iat,
  jti: 'c3b8c0a4-7f5c-4b47-9d2d-1b2c3d4e5f60',
  iss: 'Vonage',
  api_key: 'abcd1234',
  application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
  payload_hash: hash(body),
  ...more,
});
const request = (jwt: string, text = body) =>
  jsonRequest(text, { headers: { authorization: `Bearer ${jwt}` } });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('vonage preset', () => {
  const preset = vonage({ signatureSecret: SECRET, clock: clockAt(NOW) });

  it('keys on message_uuid, with the status of a status webhook', () => {
    expect(preset).toMatchObject({ provider: 'vonage', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request('x'))).toBe('aaaaaaaa-bbbb-4ccc-8ddd-000000000001:delivered');
    const inbound = JSON.stringify({ message_uuid: 'u-2', message_type: 'text', text: 'hi' });
    expect(preset.key(request('x', inbound))).toBe('u-2');
    expect(preset.eventType(request('x', inbound))).toBe('text');
    expect(preset.eventType(request('x'))).toBe('delivered');
  });

  it.each([
    ['genuine', () => token(claimsAt(NOW)), body, true, true],
    [
      'an altered body (the token alone is intact)',
      () => token(claimsAt(NOW)),
      body.replace('delivered', 'read'),
      true,
      false,
    ],
    [
      'a hash in upper case',
      () => token(claimsAt(NOW, { payload_hash: hash(body).toUpperCase() })),
      body,
      true,
      true,
    ],
    ['another secret', () => token(claimsAt(NOW), 'not-our-secret'), body, false, false],
    ['no payload_hash', () => token(claimsAt(NOW, { payload_hash: undefined })), body, true, false],
    ['iat 301 s old', () => token(claimsAt(NOW - 301)), body, true, false],
    ['iat 301 s ahead', () => token(claimsAt(NOW + 301)), body, true, false],
    ['alg none', () => `${part({ alg: 'none' })}.${part(claimsAt(NOW))}.`, body, false, false],
    ['RS256 (public-key) token', () => rs256(claimsAt(NOW)), body, false, false],
  ])('%s: verifySignature %s, the preset %s', async (_label, make, text, sdk, expected) => {
    const jwt = make();
    expect(verifySignature(jwt, SECRET)).toBe(sdk);
    expect(await preset.verify?.(request(jwt, text))).toBe(expected);
  });

  it('takes the old and the new secret while both are configured, and a tolerance of its own', () => {
    const both = vonage({ signatureSecret: ['old-secret', SECRET], clock: clockAt(NOW) });
    expect(both.verify?.(request(token(claimsAt(NOW), 'old-secret')))).toBe(true);
    expect(both.verify?.(request(token(claimsAt(NOW))))).toBe(true);
    const lenient = vonage({ signatureSecret: SECRET, clock: clockAt(NOW), toleranceSeconds: 600 });
    expect(lenient.verify?.(request(token(claimsAt(NOW - 500))))).toBe(true);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'signatureSecret'],
    [{ signatureSecret: '' }, 'signatureSecret'],
    [{ signatureSecret: SECRET, clock: 5 }, 'clock'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => vonage(options as never)).toThrow(ConfigError);
    expect(() => vonage(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

/** An RS256 token: Vonage's signed webhooks are HS256; a public-key token is never checked against a secret. */
function rs256(claims: Record<string, unknown>): string {
  const input = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), rsa.privateKey).toString('base64url')}`;
}
