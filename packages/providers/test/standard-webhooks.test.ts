import { Webhook } from 'standardwebhooks';
import { ConfigError } from '@webhook-idempotency/core';
import { clerk, resend, standardWebhooks, stripe } from '../src';
import { clockAt, jsonRequest } from './helpers';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const NOW = 1_715_678_400;

const payload = JSON.stringify({
  type: 'invoice.paid',
  timestamp: '2024-05-14T10:31:05.000Z',
  data: { invoice_id: 'inv_1042', amount: 1500, currency: 'EUR' },
});

/** The signature as the official `standardwebhooks` package computes it: the second opinion. */
const sign = (timestamp = NOW, secret = SECRET, body = payload, id = ID) =>
  new Webhook(secret).sign(id, new Date(timestamp * 1000), body);

const headers = (signature: string | undefined, timestamp = NOW, prefix = 'webhook') => ({
  [`${prefix}-id`]: ID,
  [`${prefix}-timestamp`]: String(timestamp),
  ...(signature === undefined ? {} : { [`${prefix}-signature`]: signature }),
});

const request = (signature: string | undefined, timestamp = NOW, body = payload) =>
  jsonRequest(body, { headers: headers(signature, timestamp) });

describe('standardWebhooks preset', () => {
  const preset = standardWebhooks({ secret: SECRET, clock: clockAt(NOW) });

  it('describes itself', () => {
    expect(preset).toMatchObject({
      provider: 'standard-webhooks',
      needsRawBody: true,
      retentionDays: 30,
    });
    expect(preset.passThrough).toBeUndefined();
    expect(standardWebhooks({ secret: SECRET, provider: 'resend' }).provider).toBe('resend');
  });

  it("the inbox's backpressure answers 429, the status the spec reads as throttle (Svix senders too)", () => {
    expect(preset.backpressureStatus).toBe(429);
    expect(clerk({ secret: SECRET }).backpressureStatus).toBe(429);
    expect(resend({ secret: SECRET }).backpressureStatus).toBe(429);
    expect(stripe({ secret: 'whsec_x' }).backpressureStatus).toBeUndefined();
  });

  describe('key', () => {
    it('is webhook-id, or svix-id from Svix', () => {
      expect(preset.key(request(undefined))).toBe(ID);
      expect(preset.key(jsonRequest(payload, { headers: headers(undefined, NOW, 'svix') }))).toBe(
        ID,
      );
    });

    it('is endpoint:webhook-id with an endpoint', () => {
      expect(
        standardWebhooks({ secret: SECRET, endpoint: 'billing' }).key(request(undefined)),
      ).toBe(`billing:${ID}`);
    });

    it('is undefined without an id', () => {
      expect(preset.key(jsonRequest(payload))).toBeUndefined();
    });
  });

  describe('verify', () => {
    it('accepts what the standardwebhooks package signed', () => {
      const signature = sign();
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(preset.verify?.(request(signature))).toBe(true);
    });

    it('accepts Svix headers', () => {
      expect(preset.verify?.(jsonRequest(payload, { headers: headers(sign(), NOW, 'svix') }))).toBe(
        true,
      );
    });

    it('accepts a secret given without the whsec_ prefix', () => {
      const bare = standardWebhooks({ secret: SECRET.slice('whsec_'.length), clock: clockAt(NOW) });
      expect(bare.verify?.(request(sign()))).toBe(true);
    });

    it('accepts when any v1 entry of the space-separated list matches, skipping v1a', () => {
      const list = `v1a,${'A'.repeat(86)}== v1,${'B'.repeat(43)}= ${sign()}`;
      expect(preset.verify?.(request(list))).toBe(true);
    });

    it('agrees with the official verifier on a fresh message', () => {
      const now = Math.floor(Date.now() / 1000);
      const live = standardWebhooks({ secret: SECRET });
      const hdrs = headers(sign(now), now);
      expect(live.verify?.(jsonRequest(payload, { headers: hdrs }))).toBe(true);
      expect(() => new Webhook(SECRET).verify(payload, hdrs)).not.toThrow();
    });

    it('rejects a wrong secret', () => {
      expect(preset.verify?.(request(sign(NOW, 'whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldA==')))).toBe(
        false,
      );
    });

    it('rejects a tampered body', () => {
      expect(preset.verify?.(request(sign(), NOW, payload.replace('1500', '15')))).toBe(false);
    });

    it('rejects a signature for another id', () => {
      expect(preset.verify?.(request(sign(NOW, SECRET, payload, 'msg_other')))).toBe(false);
    });

    it('rejects a stale or future timestamp beyond the tolerance', () => {
      expect(preset.verify?.(request(sign(NOW - 301), NOW - 301))).toBe(false);
      expect(preset.verify?.(request(sign(NOW + 301), NOW + 301))).toBe(false);
      expect(preset.verify?.(request(sign(NOW - 300), NOW - 300))).toBe(true);
      const strict = standardWebhooks({
        secret: SECRET,
        toleranceSeconds: 60,
        clock: clockAt(NOW),
      });
      expect(strict.verify?.(request(sign(NOW - 61), NOW - 61))).toBe(false);
    });

    it.each([
      ['missing', undefined],
      ['without version', sign().slice(3)],
      ['only v1a', `v1a,${sign().slice(3)}`],
      ['garbled', 'v1,!!!'],
    ])('rejects a signature header that is %s', (_label, signature) => {
      expect(preset.verify?.(request(signature))).toBe(false);
    });

    it('rejects a missing or non-numeric timestamp', () => {
      expect(
        preset.verify?.(
          jsonRequest(payload, { headers: { 'webhook-id': ID, 'webhook-signature': sign() } }),
        ),
      ).toBe(false);
      expect(
        preset.verify?.(
          jsonRequest(payload, { headers: { ...headers(sign()), 'webhook-timestamp': 'soon' } }),
        ),
      ).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secret'],
      [{ secret: 'whsec_' }, 'secret'],
      [{ secret: 'whsec_not base64!' }, 'secret'],
      [{ secret: SECRET, toleranceSeconds: Number.NaN }, 'toleranceSeconds'],
      [{ secret: SECRET, endpoint: '' }, 'endpoint'],
      [{ secret: SECRET, provider: '' }, 'provider'],
      [{ secret: SECRET, clock: 'now' }, 'clock'],
      [{ secret: SECRET, secretEncoding: 'hex' }, 'secretEncoding'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => standardWebhooks(options as never)).toThrow(ConfigError);
      expect(() => standardWebhooks(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });

  describe("secretEncoding: 'utf8'", () => {
    // A sender that hands its raw secret to a Standard Webhooks library base64-encodes it first:
    // the HMAC key is then the secret's own bytes, whatever they spell.
    const raw = 'polar_whs_raw-secret not base64!';
    const utf8 = standardWebhooks({ secret: raw, secretEncoding: 'utf8', clock: clockAt(NOW) });
    const asLibraryKey = (text: string) => Buffer.from(text, 'utf8').toString('base64');

    it('keys the HMAC with the UTF-8 bytes of the secret, prefix and all', () => {
      expect(utf8.verify?.(request(sign(NOW, asLibraryKey(raw))))).toBe(true);
      expect(utf8.verify?.(request(sign(NOW, asLibraryKey(`${raw}x`))))).toBe(false);
    });

    it('does not decode a whsec_ secret: its base64 key signs nothing it accepts', () => {
      const preset = standardWebhooks({
        secret: SECRET,
        secretEncoding: 'utf8',
        clock: clockAt(NOW),
      });
      expect(preset.verify?.(request(sign()))).toBe(false);
      expect(preset.verify?.(request(sign(NOW, asLibraryKey(SECRET))))).toBe(true);
    });
  });
});
