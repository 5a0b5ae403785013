/**
 * The Recurly preset. Recurly publishes no Node verifier (its Go and Ruby clients have one) and
 * no fixed vector, so no SDK or vector judges it: the genuine requests are signed by node:crypto
 * from the formula of Recurly's Go client (hex HMAC-SHA256 of `ms.body`, the stamp in
 * milliseconds), independently of the preset and the kit.
 */
import { createHmac } from 'node:crypto';
import * as signers from '@webhook-idempotency/providers/testing';
import { recurly } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const SECRET = '354fab5bd35f5a0d50845ee7e30165244468b13c2c343f104e4e730a59326d9d';
const BODY = JSON.stringify({
  id: 'rjxwmwedwqug',
  object_type: 'account',
  site_id: 'qc326l1hl8k9',
  event_type: 'created',
  event_time: '2026-12-06T12:00:00Z',
  account_code: 'adfas23zzz14123',
});
const hex = (t: string, body: string, secret: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('recurly preset', () => {
  describeStamped({
    build: (options) => recurly(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: 'rjxwmwedwqug',
    sign: async (at, body, secret) => ({
      'recurly-signature': `${at},${hex(String(at), body, secret)}`,
    }),
  });

  it('accepts any signature after the stamp, refuses a stamp in seconds or no signature', () => {
    const at = Date.parse('2026-12-06T12:00:00.000Z');
    const preset = recurly({ secret: SECRET, clock: () => at });
    const request = (value: string) =>
      jsonRequest(BODY, { headers: { 'recurly-signature': value } });
    const good = hex(String(at), BODY, SECRET);
    const other = hex(String(at), BODY, 'other');
    const seconds = String(at / 1000);
    expect([
      preset.verify?.(request(`${at},${other},${good}`)),
      preset.verify?.(request(`${at},${good},${other}`)),
      preset.verify?.(request(`${seconds},${hex(seconds, BODY, SECRET)}`)),
      preset.verify?.(request(String(at))),
    ]).toEqual([true, true, false, false]);
  });

  it('names the event object_type.event_type', () => {
    const preset = recurly({ secret: SECRET });
    expect(preset.eventType(jsonRequest(BODY))).toBe('account.created');
    expect(preset.eventType(jsonRequest({ id: 'x', event_type: 'created' }))).toBeUndefined();
  });

  it('signs test-kit deliveries the formula accepts, one signature per secret', () => {
    const delivery = signers.recurly({ secret: [SECRET, 'next'] }).event(JSON.parse(BODY));
    const [t = '', ...signatures] = String(delivery.headers['recurly-signature']).split(',');
    const body = delivery.body.toString('utf8');
    expect(signatures).toEqual([hex(t, body, SECRET), hex(t, body, 'next')]);
    const preset = recurly({ secret: 'next' });
    expect(preset.verify?.(jsonRequest(body, { headers: { ...delivery.headers } }))).toBe(true);
    const forged = delivery.forged();
    const forgedRequest = jsonRequest(forged.body.toString('utf8'), {
      headers: { ...forged.headers },
    });
    expect(preset.verify?.(forgedRequest)).toBe(false);
  });
});
