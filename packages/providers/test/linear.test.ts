import { createHmac } from 'node:crypto';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { ConfigError } from '@webhook-idempotency/core';
import { linear } from '../src';
import { jsonRequest } from './helpers';

// Judged by @linear/sdk 98's LinearWebhookClient.verify (hex HMAC-SHA256 of the raw body, the
// body's webhookTimestamp within a minute of Date.now): the clock is frozen for both.
const SECRET = 'lin_wh_signing_secret_of_ours';
const NOW = Date.parse('2026-12-04T10:00:00.000Z');
const DELIVERY = '6a1f3b8e-2d4c-4b8a-9e7f-0c5d1a2b3c4d';
const event = (stamp = NOW - 5_000, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    action: 'update',
    type: 'Issue',
    data: { id: 'c8b2f1e0-1111-4222-8333-444455556666', title: 'Ship it', priority: 2 },
    url: 'https://linear.app/acme/issue/ENG-42',
    createdAt: '2026-12-04T09:59:55.000Z',
    organizationId: 'org-1',
    webhookTimestamp: stamp,
    webhookId: 'wh-1',
    ...extra,
  });
const sign = (body: string, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');
const request = (body: string, signature: string | undefined, delivery = DELIVERY) =>
  jsonRequest(body, {
    headers: {
      'linear-delivery': delivery,
      'linear-event': 'Issue',
      ...(signature === undefined ? {} : { 'linear-signature': signature }),
    },
  });

describe('linear preset', () => {
  const preset = linear({ secret: SECRET, clock: () => NOW });
  const judge = new LinearWebhookClient(SECRET);
  const judged = (body: string, signature: string) => {
    try {
      return judge.verify(Buffer.from(body), signature);
    } catch {
      return false;
    }
  };
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('describes itself and keys on Linear-Delivery', () => {
    expect(preset).toMatchObject({ provider: 'linear', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(event(), undefined))).toBe(DELIVERY);
    expect(preset.key(request(event(), undefined, ''))).toBeUndefined();
  });

  it("accepts what the SDK's verifier accepts, and refuses a tampered body, another secret or a stale timestamp", () => {
    const body = event();
    expect(judged(body, sign(body))).toBe(true);
    expect(preset.verify?.(request(body, sign(body)))).toBe(true);

    const tampered = body.replace('Ship it', 'Ship that');
    expect(judged(tampered, sign(body))).toBe(false);
    expect(preset.verify?.(request(tampered, sign(body)))).toBe(false);

    expect(judged(body, sign(body, 'another secret'))).toBe(false);
    expect(preset.verify?.(request(body, sign(body, 'another secret')))).toBe(false);

    // Signed, but the signed timestamp is 61 s old (or ahead): both refuse a replay past the minute.
    for (const stamp of [NOW - 61_000, NOW + 61_000]) {
      const old = event(stamp);
      expect(judged(old, sign(old))).toBe(false);
      expect(preset.verify?.(request(old, sign(old)))).toBe(false);
    }
    const edge = event(NOW - 60_000);
    expect(judged(edge, sign(edge))).toBe(true);
    expect(preset.verify?.(request(edge, sign(edge)))).toBe(true);
    // No timestamp, or not a number: the SDK throws, the preset refuses.
    const unstamped = event(NOW, { webhookTimestamp: undefined });
    expect(unstamped).not.toContain('webhookTimestamp');
    for (const body of [unstamped, event(String(NOW) as never)]) {
      expect(judged(body, sign(body))).toBe(false);
      expect(preset.verify?.(request(body, sign(body)))).toBe(false);
    }
  });

  it('fingerprints the delivery without its webhookTimestamp, which a retry signs anew', () => {
    const first = preset.fingerprint?.(request(event(NOW - 5_000), undefined));
    const retry = preset.fingerprint?.(request(event(NOW - 1_000), undefined));
    const other = preset.fingerprint?.(
      request(event(NOW - 5_000, { action: 'remove' }), undefined),
    );
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(retry).toBe(first);
    expect(other).not.toBe(first);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: SECRET, toleranceSeconds: 0 }, 'toleranceSeconds'],
    [{ secret: SECRET, clock: 5 }, 'clock'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => linear(options as never)).toThrow(ConfigError);
    expect(() => linear(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
