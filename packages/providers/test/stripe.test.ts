import Stripe from 'stripe';
import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import type { HttpRequest } from '@webhook-idempotency/core';
import { createEngine } from '@webhook-idempotency/core/adapter';
import { InMemoryStore } from '@webhook-idempotency/core';
import type { ExternalId } from '@webhook-idempotency/core';
import { stripe } from '../src';
import { clockAt, jsonRequest, makeRequest } from './helpers';

const SECRET = 'whsec_3f9a1c0b7e5d4a2f8c6b1e0d9a7f5c3b';
const NOW = 1_715_678_400;

/** A realistic event body, with the spacing Stripe uses: the signature covers these exact bytes. */
const payload = JSON.stringify(
  {
    id: 'evt_1PqRsT2eZvKYlo2C0a1b2c3d',
    object: 'event',
    api_version: '2024-06-20',
    created: NOW - 2,
    type: 'payment_intent.succeeded',
    livemode: false,
    pending_webhooks: 1,
    request: { id: 'req_8GdbP0sVtxH6Yt', idempotency_key: 'a3c2e5f0-0b1d-4c1a-9f8e-2b7d6c5a4e3f' },
    data: {
      object: {
        id: 'pi_3PqRsT2eZvKYlo2C1xYz',
        object: 'payment_intent',
        amount: 2000,
        currency: 'usd',
        status: 'succeeded',
      },
    },
  },
  null,
  2,
);

/** The header as Stripe's own library produces it: the independent second opinion. */
const signed = (timestamp = NOW, secret = SECRET, body = payload) =>
  Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });

const request = (header: string | undefined, body: string = payload) =>
  jsonRequest(body, { headers: header === undefined ? {} : { 'stripe-signature': header } });

describe('stripe preset', () => {
  const preset = stripe({ secret: SECRET, clock: clockAt(NOW) });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'stripe', needsRawBody: true, retentionDays: 30 });
    expect(preset.passThrough).toBeUndefined();
  });

  describe('key', () => {
    it('is event.id, from the raw bytes or a parsed body', () => {
      expect(preset.key(request(undefined))).toBe('evt_1PqRsT2eZvKYlo2C0a1b2c3d');
      expect(preset.key(jsonRequest(payload, { parsed: true, raw: false }))).toBe(
        'evt_1PqRsT2eZvKYlo2C0a1b2c3d',
      );
    });

    it('is undefined without an id', () => {
      expect(preset.key(jsonRequest({ object: 'event', type: 'ping' }))).toBeUndefined();
      expect(preset.key(jsonRequest({ id: '' }))).toBeUndefined();
      expect(preset.key(makeRequest())).toBeUndefined();
    });
  });

  describe('key through the engine (one code for one situation, issue 8 item 13)', () => {
    /** The engine's own answer (status, code) to a signed request carrying `body`, with the preset or on a route without one. */
    async function answer(body: string, withPreset: boolean): Promise<[number, string] | 'run'> {
      const signedRequest: HttpRequest<{ id?: unknown }> = {
        ...request(signed(NOW, SECRET, body), body),
        native: JSON.parse(body) as { id?: unknown },
      };
      const store = new InMemoryStore();
      const engine = withPreset
        ? createEngine({ store, preset })
        : createEngine({
            store,
            provider: 'stripe',
            key: (event: { id?: unknown }) => event.id as ExternalId,
          });
      const decision = await engine.begin(signedRequest);
      if (decision.action !== 'respond') return 'run';
      return [
        decision.response.status,
        (JSON.parse(decision.response.body.toString('utf8')) as { code: string }).code,
      ];
    }

    it.each([
      ['an object', { id: { nested: 'evt_1' } }],
      ['an array', { id: ['evt_1'] }],
      ['a boolean', { id: true }],
      ['a fraction', { id: 1.5 }],
      ['an unsafe integer', { id: 2 ** 60 }],
      ['a NUL character', { id: 'evt_\u0000' }],
      ['a lone surrogate', { id: '\ud800' }],
    ])(
      'an id that is %s answers 400 ERR_IDEMPOTENCY_KEY_INVALID, as a route without the preset does',
      async (_label, event) => {
        const body = JSON.stringify({ ...event, object: 'event' });
        expect(await answer(body, true)).toEqual([400, 'ERR_IDEMPOTENCY_KEY_INVALID']);
        expect(await answer(body, false)).toEqual([400, 'ERR_IDEMPOTENCY_KEY_INVALID']);
      },
    );

    it.each([
      ['absent', { object: 'event' }],
      ['null', { id: null, object: 'event' }],
      ['empty', { id: '', object: 'event' }],
    ])(
      'an id that is %s answers 400 ERR_IDEMPOTENCY_KEY_MISSING on both routes',
      async (_label, event) => {
        const body = JSON.stringify(event);
        expect(await answer(body, true)).toEqual([400, 'ERR_IDEMPOTENCY_KEY_MISSING']);
        expect(await answer(body, false)).toEqual([400, 'ERR_IDEMPOTENCY_KEY_MISSING']);
      },
    );

    it('a usable id runs the handler on both routes', async () => {
      expect(await answer(payload, true)).toBe('run');
      expect(await answer(payload, false)).toBe('run');
    });
  });

  describe('verify', () => {
    it("accepts the header stripe's generateTestHeaderString produced", () => {
      const header = signed();
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(preset.verify?.(request(header))).toBe(true);
    });

    it('agrees with the formula computed directly with node:crypto', () => {
      const v1 = createHmac('sha256', SECRET).update(`${NOW}.${payload}`).digest('hex');
      expect(signed()).toBe(`t=${NOW},v1=${v1}`);
    });

    it('accepts when any v1 matches (rolled secrets), ignoring other schemes', () => {
      const good = signed().split('v1=')[1]!;
      expect(preset.verify?.(request(`t=${NOW},v1=${'0'.repeat(64)},v0=abc,v1=${good}`))).toBe(
        true,
      );
    });

    it('accepts a timestamp up to the tolerance away, both ways', () => {
      expect(preset.verify?.(request(signed(NOW - 300)))).toBe(true);
      expect(preset.verify?.(request(signed(NOW + 300)))).toBe(true);
    });

    it('rejects a stale or future timestamp beyond the tolerance', () => {
      expect(preset.verify?.(request(signed(NOW - 301)))).toBe(false);
      expect(preset.verify?.(request(signed(NOW + 301)))).toBe(false);
      const strict = stripe({ secret: SECRET, toleranceSeconds: 10, clock: clockAt(NOW) });
      expect(strict.verify?.(request(signed(NOW - 11)))).toBe(false);
      expect(strict.verify?.(request(signed(NOW - 10)))).toBe(true);
    });

    it('rejects a wrong secret', () => {
      expect(preset.verify?.(request(signed(NOW, 'whsec_another')))).toBe(false);
    });

    it('rejects a tampered body, even one that only re-serialises the same JSON', () => {
      const header = signed();
      expect(
        preset.verify?.(request(header, payload.replace('"amount": 2000', '"amount": 1'))),
      ).toBe(false);
      expect(preset.verify?.(request(header, JSON.stringify(JSON.parse(payload))))).toBe(false);
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['without t', `v1=${'a'.repeat(64)}`],
      ['without v1', `t=${NOW}`],
      ['with a non-numeric t', `t=abc,v1=${'a'.repeat(64)}`],
      ['with a short v1', `t=${NOW},v1=abc`],
      ['nonsense', '=,=,,;'],
    ])('rejects a header that is %s, without throwing', (_label, header) => {
      expect(preset.verify?.(request(header))).toBe(false);
    });

    it('rejects when the raw bytes are missing', () => {
      const header = signed();
      expect(
        preset.verify?.(
          jsonRequest(payload, {
            parsed: true,
            raw: false,
            headers: { 'stripe-signature': header },
          }),
        ),
      ).toBe(false);
    });

    it('reads the real clock by default', () => {
      const live = stripe({ secret: SECRET });
      const now = Math.floor(Date.now() / 1000);
      expect(live.verify?.(request(signed(now)))).toBe(true);
      expect(live.verify?.(request(signed(now - 3600)))).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secret'],
      [{ secret: '' }, 'secret'],
      [{ secret: SECRET, toleranceSeconds: 0 }, 'toleranceSeconds'],
      [{ secret: SECRET, toleranceSeconds: -5 }, 'toleranceSeconds'],
      [{ secret: SECRET, toleranceSeconds: '300' }, 'toleranceSeconds'],
      [{ secret: SECRET, clock: 5 }, 'clock'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => stripe(options as never)).toThrow(ConfigError);
      expect(() => stripe(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
