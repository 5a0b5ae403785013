import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { lemonsqueezy } from '../src';
import { jsonRequest, storedJson } from './helpers';

// No verifier ships in @lemonsqueezy/lemonsqueezy.js; the judge is Lemon Squeezy's documented
// formula ("Signing requests", docs.lemonsqueezy.com/help/webhooks/signing-requests): the hex
// HMAC-SHA256 digest of the raw body under the signing secret, in X-Signature.
const SECRET = 'lemon-signing-secret';
const update = (updatedAt: string, status = 'active') =>
  JSON.stringify({
    meta: { event_name: 'subscription_updated', test_mode: true, webhook_id: 'c3f8e2a1' },
    data: {
      type: 'subscriptions',
      id: '1',
      attributes: { store_id: 1, status, updated_at: updatedAt },
    },
  });
const BODY = update('2026-12-01T10:00:00.000000Z');
const sign = (body = BODY, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');
const request = (signature: string | undefined, body = BODY) =>
  jsonRequest(body, { headers: signature === undefined ? {} : { 'x-signature': signature } });

describe('lemonsqueezy preset', () => {
  const preset = lemonsqueezy({ secret: SECRET });

  it('keys on event name, record type, id and updated_at', () => {
    expect(preset).toMatchObject({
      provider: 'lemonsqueezy',
      needsRawBody: true,
      retentionDays: 7,
    });
    expect(preset.key(request(undefined))).toBe(
      'subscription_updated:subscriptions:1@2026-12-01T10:00:00.000000Z',
    );
    // The next change of the same subscription is another key; a record without updated_at keys without it.
    expect(
      preset.key(request(undefined, update('2026-12-02T10:00:00.000000Z', 'cancelled'))),
    ).not.toBe(preset.key(request(undefined)));
    expect(
      preset.key(
        jsonRequest({ meta: { event_name: 'order_created' }, data: { type: 'orders', id: 7 } }),
      ),
    ).toBe('order_created:orders:7');
    expect(preset.key(jsonRequest({ meta: {}, data: { type: 'orders', id: 7 } }))).toBeUndefined();
  });

  it('verifies the documented formula, and refuses tampered, wrongly keyed or unsigned bodies', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), BODY.replace('active', 'expired')))).toBe(false);
    expect(preset.verify?.(request(sign(BODY, 'another')))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('replays a stored 2xx as 200, the only status Lemon Squeezy counts as delivered', () => {
    const created = { ...storedJson('{"ok":true}'), status: 201 };
    expect(preset.replay?.(created, request(undefined)).status).toBe(200);
    expect(preset.replay?.({ ...created, status: 204 }, request(undefined)).status).toBe(200);
    const ok = storedJson('{"ok":true}');
    expect(preset.replay?.(ok, request(undefined))).toBe(ok);
  });

  it('throws a ConfigError naming secret', () => {
    expect(() => lemonsqueezy({} as never)).toThrow(ConfigError);
  });
});
