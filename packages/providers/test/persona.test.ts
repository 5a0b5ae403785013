/**
 * The Persona preset. Persona publishes no Node SDK and no worked example, so no SDK or vector
 * judges it: the genuine requests are signed by node:crypto from the documented formula (hex
 * HMAC-SHA256 of `t.body`), independently of the preset and the kit, including the header of two
 * space-separated groups Persona sends while a secret rotates.
 */
import { createHmac } from 'node:crypto';
import * as signers from '@webhook-idempotency/providers/testing';
import { persona } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const SECRET = 'wbhsec_persona-secret';
const BODY = JSON.stringify({
  data: {
    type: 'event',
    id: 'evt_ABC123xyz456',
    attributes: {
      name: 'inquiry.completed',
      payload: { data: { type: 'inquiry', id: 'inq_1' } },
      'created-at': '2026-12-06T12:00:00.000Z',
    },
  },
});
const v1 = (t: number, body: string, secret: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const group = (t: number, body: string, secret: string) => `t=${t},v1=${v1(t, body, secret)}`;

describe('persona preset', () => {
  describeStamped({
    build: (options) => persona(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: 'evt_ABC123xyz456',
    sign: async (at, body, secret) => ({
      'persona-signature': group(Math.floor(at / 1000), body, secret),
    }),
  });

  it('accepts either group of a rotation’s header, each checked with its own t', () => {
    const now = 1_796_558_400;
    const preset = persona({ secret: SECRET, clock: () => now * 1000 });
    const request = (value: string) =>
      jsonRequest(BODY, { headers: { 'persona-signature': value } });
    expect([
      preset.verify?.(request(`${group(now, BODY, 'old')} ${group(now, BODY, SECRET)}`)),
      preset.verify?.(request(`${group(now, BODY, SECRET)} ${group(now, BODY, 'old')}`)),
      // The right signature under another group's (stale) stamp does not verify.
      preset.verify?.(
        request(`t=${now - 3600},v1=${v1(now, BODY, SECRET)} ${group(now, BODY, 'old')}`),
      ),
      preset.verify?.(request(`${group(now - 3600, BODY, SECRET)} ${group(now, BODY, 'old')}`)),
    ]).toEqual([true, true, false, false]);
  });

  it('names the event by data.attributes.name, and reads the key from data.id', () => {
    const preset = persona({ secret: SECRET });
    expect(preset.eventType(jsonRequest(BODY))).toBe('inquiry.completed');
    expect(preset.key(jsonRequest({ data: { id: 'evt_1' } }))).toBe('evt_1');
    expect(preset.eventType(jsonRequest({ data: { id: 'evt_1' } }))).toBeUndefined();
  });

  it('signs test-kit deliveries the documented formula accepts, one group per secret', () => {
    const delivery = signers.persona({ secret: [SECRET, 'next'] }).event(JSON.parse(BODY));
    const value = String(delivery.headers['persona-signature']);
    const t = Number(/^t=(\d+),/.exec(value)?.[1]);
    const body = delivery.body.toString('utf8');
    expect(value).toBe(`${group(t, body, SECRET)} ${group(t, body, 'next')}`);
    const preset = persona({ secret: 'next' });
    expect(preset.verify?.(jsonRequest(body, { headers: { ...delivery.headers } }))).toBe(true);
    const forged = delivery.forged();
    const forgedRequest = jsonRequest(forged.body.toString('utf8'), {
      headers: { ...forged.headers },
    });
    expect(preset.verify?.(forgedRequest)).toBe(false);
  });
});
