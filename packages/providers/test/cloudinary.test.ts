import { createHash } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { v2 as sdk } from 'cloudinary';
import { cloudinary } from '../src';
import { jsonRequest } from './helpers';

// Judged by cloudinary 2.11's utils.verifyNotificationSignature (hex digest of body + timestamp +
// api_secret, SHA-1 unless signature_algorithm says sha256; stale past valid_for, 7200 s), read
// from its global config: set per case, the clock frozen for both.
const SECRET = 'cld_api_secret_of_ours';
const NOW = Date.parse('2026-12-06T12:00:00.000Z');
const SECONDS = NOW / 1000;
const BODY = JSON.stringify({
  notification_type: 'upload',
  timestamp: '2026-12-06T11:59:58+00:00',
  request_id: '799c3f8b8d0c9a4a3e0a',
  asset_id: '3515c6000a548515f1134043f9785c2f',
  public_id: 'samples/cat',
  version: 1765022398,
  secure_url: 'https://res.cloudinary.com/demo/image/upload/v1765022398/samples/cat.jpg',
});
const digest = (algorithm: string, body: string, stamp: number, secret = SECRET) =>
  createHash(algorithm).update(`${body}${stamp}${secret}`).digest('hex');
const request = (body: string, stamp: number | string | undefined, signature?: string) =>
  jsonRequest(body, {
    headers: {
      ...(stamp === undefined ? {} : { 'x-cld-timestamp': String(stamp) }),
      ...(signature === undefined ? {} : { 'x-cld-signature': signature }),
    },
  });

describe('cloudinary preset', () => {
  const preset = cloudinary({ apiSecret: SECRET, clock: () => NOW });
  const judged = (body: string, stamp: number, signature: string, algorithm = 'sha1') => {
    sdk.config({ api_secret: SECRET, signature_algorithm: algorithm });
    return sdk.utils.verifyNotificationSignature(body, stamp, signature);
  };
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('describes itself and names the notification type', () => {
    expect(preset).toMatchObject({ provider: 'cloudinary', needsRawBody: true, retentionDays: 7 });
    expect(preset.eventType(request(BODY, SECONDS))).toBe('upload');
  });

  it.each(['sha1', 'sha256'] as const)(
    'accepts what the SDK accepts under %s, and refuses a tampered body or another secret',
    (algorithm) => {
      const own = cloudinary({
        apiSecret: SECRET,
        signatureAlgorithm: algorithm,
        clock: () => NOW,
      });
      const signature = digest(algorithm, BODY, SECONDS);
      expect(judged(BODY, SECONDS, signature, algorithm)).toBe(true);
      expect(own.verify?.(request(BODY, SECONDS, signature))).toBe(true);
      // Hex in capitals is the same digest.
      expect(own.verify?.(request(BODY, SECONDS, signature.toUpperCase()))).toBe(true);

      const tampered = BODY.replace('samples/cat', 'samples/dog');
      expect(judged(tampered, SECONDS, signature, algorithm)).toBe(false);
      expect(own.verify?.(request(tampered, SECONDS, signature))).toBe(false);
      const other = digest(algorithm, BODY, SECONDS, 'another secret');
      expect(judged(BODY, SECONDS, other, algorithm)).toBe(false);
      expect(own.verify?.(request(BODY, SECONDS, other))).toBe(false);
      // The timestamp is signed: moving it breaks the signature.
      expect(own.verify?.(request(BODY, SECONDS - 1, signature))).toBe(false);
    },
  );

  it('refuses the other digest than the one configured', () => {
    const sha256 = digest('sha256', BODY, SECONDS);
    expect(preset.verify?.(request(BODY, SECONDS, sha256))).toBe(false);
  });

  it('takes a timestamp within two hours either way; the SDK refuses only the past', () => {
    for (const [stamp, accepted] of [
      [SECONDS - 7200, true],
      [SECONDS - 7201, false],
      [SECONDS + 7200, true],
      [SECONDS + 7201, false],
    ] as const) {
      const signature = digest('sha1', BODY, stamp);
      expect(preset.verify?.(request(BODY, stamp, signature))).toBe(accepted);
      if (stamp < SECONDS) expect(judged(BODY, stamp, signature)).toBe(accepted);
    }
    const narrow = cloudinary({ apiSecret: SECRET, toleranceSeconds: 60, clock: () => NOW });
    const old = SECONDS - 61;
    expect(narrow.verify?.(request(BODY, old, digest('sha1', BODY, old)))).toBe(false);
  });

  it('refuses a request without its headers or with a garbled timestamp', () => {
    const signature = digest('sha1', BODY, SECONDS);
    expect(preset.verify?.(request(BODY, undefined, signature))).toBe(false);
    expect(preset.verify?.(request(BODY, SECONDS))).toBe(false);
    expect(preset.verify?.(request(BODY, `${SECONDS}.5`, signature))).toBe(false);
  });

  it('keys on the type and the body digest: a re-signed retry is the same receipt', () => {
    const key = preset.key(request(BODY, SECONDS));
    expect(key).toBe(`upload:${createHash('sha256').update(BODY).digest('hex')}`);
    expect(preset.key(request(BODY, SECONDS + 60))).toBe(key);
    expect(preset.key(request(BODY.replace('cat', 'dog'), SECONDS))).not.toBe(key);
    expect(preset.key(request('{"public_id":"x"}', SECONDS))).toBeUndefined();
  });

  it('accepts the old and the new secret while you change it', () => {
    const both = cloudinary({ apiSecret: ['old secret', SECRET], clock: () => NOW });
    for (const secret of ['old secret', SECRET]) {
      const signature = digest('sha1', BODY, SECONDS, secret);
      expect(both.verify?.(request(BODY, SECONDS, signature))).toBe(true);
    }
  });

  it('refuses bad options by name', () => {
    expect(() => cloudinary({ apiSecret: '' })).toThrow(ConfigError);
    expect(() => cloudinary({ apiSecret: SECRET, signatureAlgorithm: 'md5' as never })).toThrow(
      expect.objectContaining({ option: 'signatureAlgorithm' }),
    );
  });
});
