import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { paddle } from '../src';
import { clockAt, jsonRequest } from './helpers';

const SECRET = 'pdl_ntfset_01hv8wzq7t4k1c0a9xz3y5b6n7_Xq7dVb2Lk9pR4sT1u0w';
const NOW = 1_715_678_400;

const payload = JSON.stringify({
  event_id: 'evt_01hv8x2acma2gz9ntcb8nbj6yw',
  event_type: 'transaction.completed',
  occurred_at: '2024-05-14T10:31:05.123456Z',
  notification_id: 'ntf_01hv8x2ag3xkdn0q4y4ad8gcbr',
  data: { id: 'txn_01hv8wptq8987qeep44cyrewp9', status: 'completed', currency_code: 'USD' },
});

/** Paddle's documented signed payload, computed directly: {ts}:{raw body}. */
const h1 = (ts: number, body = payload, secret = SECRET) =>
  createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex');

const request = (signature: string | undefined, body = payload) =>
  jsonRequest(body, { headers: signature === undefined ? {} : { 'paddle-signature': signature } });

describe('paddle preset', () => {
  const preset = paddle({ secret: SECRET, clock: clockAt(NOW) });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'paddle', needsRawBody: true, retentionDays: 30 });
    expect(preset.passThrough).toBeUndefined();
  });

  describe('key', () => {
    it('is event_id', () => {
      expect(preset.key(request(undefined))).toBe('evt_01hv8x2acma2gz9ntcb8nbj6yw');
    });

    it('is undefined without it', () => {
      expect(preset.key(jsonRequest({ notification_id: 'ntf_1' }))).toBeUndefined();
    });
  });

  describe('verify', () => {
    it('accepts ts=…;h1=…', () => {
      expect(preset.verify?.(request(`ts=${NOW};h1=${h1(NOW)}`))).toBe(true);
    });

    it('accepts when any h1 matches', () => {
      expect(preset.verify?.(request(`ts=${NOW};h1=${'0'.repeat(64)};h1=${h1(NOW)}`))).toBe(true);
    });

    it('applies the 5-second default tolerance, both ways', () => {
      expect(preset.verify?.(request(`ts=${NOW - 5};h1=${h1(NOW - 5)}`))).toBe(true);
      expect(preset.verify?.(request(`ts=${NOW - 6};h1=${h1(NOW - 6)}`))).toBe(false);
      expect(preset.verify?.(request(`ts=${NOW + 6};h1=${h1(NOW + 6)}`))).toBe(false);
      const relaxed = paddle({ secret: SECRET, toleranceSeconds: 60, clock: clockAt(NOW) });
      expect(relaxed.verify?.(request(`ts=${NOW - 6};h1=${h1(NOW - 6)}`))).toBe(true);
    });

    it('rejects a wrong secret', () => {
      expect(preset.verify?.(request(`ts=${NOW};h1=${h1(NOW, payload, 'pdl_ntfset_other')}`))).toBe(
        false,
      );
    });

    it('rejects a tampered body', () => {
      expect(
        preset.verify?.(
          request(`ts=${NOW};h1=${h1(NOW)}`, payload.replace('completed', 'canceled')),
        ),
      ).toBe(false);
    });

    it('rejects a signature made for another timestamp', () => {
      expect(preset.verify?.(request(`ts=${NOW};h1=${h1(NOW - 1)}`))).toBe(false);
    });

    it.each([
      ['missing', undefined],
      ['without ts', `h1=${h1(NOW)}`],
      ['without h1', `ts=${NOW}`],
      ['with a garbled ts', `ts=now;h1=${h1(NOW)}`],
      ['comma-separated', `ts=${NOW},h1=${h1(NOW)}`],
    ])('rejects a header that is %s', (_label, signature) => {
      expect(preset.verify?.(request(signature))).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secret'],
      [{ secret: '' }, 'secret'],
      [{ secret: SECRET, toleranceSeconds: 0 }, 'toleranceSeconds'],
      [{ secret: SECRET, clock: 1 }, 'clock'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => paddle(options as never)).toThrow(ConfigError);
      expect(() => paddle(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
