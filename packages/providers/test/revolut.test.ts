/**
 * The Revolut Merchant preset. Revolut publishes no SDK verifier, and the example signature of its
 * page is not the HMAC of its example payload under its example secret, so no SDK or vector
 * judges it: the genuine requests are signed by node:crypto from the documented formula
 * (`v1.` + the millisecond timestamp + `.` + the raw body), independently of the preset and the kit.
 */
import { createHmac } from 'node:crypto';
import * as signers from '@webhook-idempotency/providers/testing';
import { revolut } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const SECRET = 'wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8';
const ORDER = '6516e61c-d279-a454-a837-bc52ce55ed49';
const BODY = JSON.stringify({
  event: 'ORDER_COMPLETED',
  order_id: ORDER,
  merchant_order_ext_ref: 'order-42',
});
const v1 = (t: string, body: string, secret: string) =>
  createHmac('sha256', secret).update(`v1.${t}.${body}`).digest('hex');

describe('revolut preset', () => {
  describeStamped({
    build: (options) => revolut(options as never),
    option: 'signingSecret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: `ORDER_COMPLETED:${ORDER}`,
    sign: async (at, body, secret) => ({
      'revolut-request-timestamp': String(at),
      'revolut-signature': `v1=${v1(String(at), body, secret)}`,
    }),
  });

  it('accepts any v1 of a rotation’s list, refuses a v0 or a stamp in seconds', () => {
    const at = Date.parse('2026-12-06T12:00:00.000Z');
    const preset = revolut({ signingSecret: SECRET, clock: () => at });
    const request = (signature: string, stamp = String(at)) =>
      jsonRequest(BODY, {
        headers: { 'revolut-request-timestamp': stamp, 'revolut-signature': signature },
      });
    const good = v1(String(at), BODY, SECRET);
    const other = v1(String(at), BODY, 'wsk_other');
    expect([
      preset.verify?.(request(`v1=${other},v1=${good}`)),
      preset.verify?.(request(`v1=${good}, v1=${other}`)),
      preset.verify?.(request(`v0=${good}`)),
      preset.verify?.(request(`v1=${v1(String(at / 1000), BODY, SECRET)}`, String(at / 1000))),
    ]).toEqual([true, true, false, false]);
  });

  it('names the event by `event`, and keys one order’s states apart', () => {
    const preset = revolut({ signingSecret: SECRET });
    const state = (event: string) => jsonRequest({ event, order_id: ORDER });
    expect(preset.eventType(jsonRequest(BODY))).toBe('ORDER_COMPLETED');
    expect(preset.key(state('ORDER_AUTHORISED'))).toBe(`ORDER_AUTHORISED:${ORDER}`);
    expect(preset.key(jsonRequest({ event: 'ORDER_COMPLETED' }))).toBeUndefined();
  });

  it('signs test-kit deliveries the documented formula accepts, one v1 per secret', () => {
    const delivery = signers
      .revolut({ signingSecret: [SECRET, 'wsk_next'] })
      .event(JSON.parse(BODY));
    const t = String(delivery.headers['revolut-request-timestamp']);
    const body = delivery.body.toString('utf8');
    expect(delivery.headers['revolut-signature']).toBe(
      `v1=${v1(t, body, SECRET)},v1=${v1(t, body, 'wsk_next')}`,
    );
    const preset = revolut({ signingSecret: 'wsk_next' });
    expect(preset.verify?.(jsonRequest(body, { headers: { ...delivery.headers } }))).toBe(true);
    const forged = delivery.forged();
    expect(
      preset.verify?.(
        jsonRequest(forged.body.toString('utf8'), { headers: { ...forged.headers } }),
      ),
    ).toBe(false);
  });
});
