import { sign, verify } from '@octokit/webhooks-methods';
import { ConfigError } from '@webhook-idempotency/core';
import { github } from '../src';
import { jsonRequest } from './helpers';

const SECRET = "It's a Secret to Everybody";
const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const HOOK = '432980123';

const payload = JSON.stringify({
  action: 'opened',
  number: 1347,
  pull_request: { id: 1, number: 1347, state: 'open', title: 'Amazing new feature' },
  repository: { id: 1296269, full_name: 'octocat/Hello-World' },
  sender: { login: 'octocat', id: 1 },
});

const request = (
  signature: string | undefined,
  body = payload,
  extra: Record<string, string> = {},
) =>
  jsonRequest(body, {
    headers: {
      'x-github-event': 'pull_request',
      'x-github-delivery': DELIVERY,
      'x-github-hook-id': HOOK,
      ...(signature === undefined ? {} : { 'x-hub-signature-256': signature }),
      ...extra,
    },
  });

describe('github preset', () => {
  const preset = github({ secret: SECRET });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'github', needsRawBody: true, retentionDays: 7 });
    expect(preset.passThrough).toBeUndefined();
  });

  describe('key', () => {
    it('is X-GitHub-Delivery', () => {
      expect(preset.key(request(undefined))).toBe(DELIVERY);
    });

    it('is hookId:delivery with perHook', () => {
      const perHook = github({ secret: SECRET, perHook: true });
      expect(perHook.key(request(undefined))).toBe(`${HOOK}:${DELIVERY}`);
      expect(
        perHook.key(jsonRequest(payload, { headers: { 'x-github-delivery': DELIVERY } })),
      ).toBeUndefined();
    });

    it('is undefined without the header', () => {
      expect(preset.key(jsonRequest(payload))).toBeUndefined();
      expect(
        preset.key(jsonRequest(payload, { headers: { 'x-github-delivery': '' } })),
      ).toBeUndefined();
    });
  });

  describe('verify', () => {
    it("accepts the signature @octokit/webhooks-methods' sign produced", async () => {
      const signature = await sign(SECRET, payload);
      expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(preset.verify?.(request(signature))).toBe(true);
      // And the official verifier agrees on the same pair.
      expect(await verify(SECRET, payload, signature)).toBe(true);
    });

    it('checks the raw bytes, including non-ASCII text', async () => {
      const body = JSON.stringify({ comment: { body: 'Привет, мир 👋' } });
      expect(preset.verify?.(request(await sign(SECRET, body), body))).toBe(true);
    });

    it('rejects a wrong secret', async () => {
      expect(preset.verify?.(request(await sign('another secret', payload)))).toBe(false);
    });

    it('rejects a tampered body', async () => {
      expect(
        preset.verify?.(request(await sign(SECRET, payload), payload.replace('1347', '1348'))),
      ).toBe(false);
    });

    it.each([
      ['missing', undefined],
      ['the legacy sha1 form', `sha1=${'a'.repeat(40)}`],
      ['without prefix', 'a'.repeat(64)],
      ['not hex', `sha256=${'z'.repeat(64)}`],
      ['truncated', `sha256=${'a'.repeat(63)}`],
    ])('rejects a signature that is %s', (_label, signature) => {
      expect(preset.verify?.(request(signature))).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secret'],
      [{ secret: '' }, 'secret'],
      [{ secret: SECRET, perHook: 'yes' }, 'perHook'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => github(options as never)).toThrow(ConfigError);
      expect(() => github(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
