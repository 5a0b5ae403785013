import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { mailgun } from '../src';
import { clockAt, jsonRequest } from './helpers';

// Mailgun's documented scheme (documentation.mailgun.com, "Securing Webhooks"): signature is the
// hex HMAC-SHA256, under the webhook signing key, of timestamp followed by token, no separator;
// `parent-signature` is the same for a subaccount's domain. The sample below is Mailgun's example
// signature block shape, signed with a key of our own.
const KEY = 'mailgun-webhook-signing-key-of-ours';
const TIMESTAMP = '1770920772';
const TOKEN = 'e0b5477167110d68991efc6b9f89f0a11066af27834600e123';
const EVENT_ID = 'CPgfbmQMTCKtHW6uIWtuVe';
const sign = (timestamp = TIMESTAMP, token = TOKEN, key = KEY) =>
  createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex');
const eventData = {
  id: EVENT_ID,
  event: 'delivered',
  timestamp: 1770920772.6,
  recipient: 'a@example.com',
};
const delivery = (signature: Record<string, unknown>, event: Record<string, unknown> = eventData) =>
  jsonRequest({ signature, 'event-data': event });
const block = (overrides: Record<string, unknown> = {}) => ({
  timestamp: TIMESTAMP,
  token: TOKEN,
  signature: sign(),
  ...overrides,
});

describe('mailgun preset', () => {
  const preset = mailgun({ signingKey: KEY });

  it('describes itself and keys on event-data.id', () => {
    expect(preset).toMatchObject({ provider: 'mailgun', needsRawBody: false, retentionDays: 7 });
    expect(preset.key(delivery(block()))).toBe(EVENT_ID);
    expect(preset.key(jsonRequest({ signature: block() }))).toBeUndefined();
  });

  it('accepts the documented signature and refuses another key, token or timestamp', () => {
    expect(preset.verify?.(delivery(block()))).toBe(true);
    // The timestamp as a JSON number, as some events send it, signs the same digits.
    expect(preset.verify?.(delivery(block({ timestamp: Number(TIMESTAMP) })))).toBe(true);
    expect(
      preset.verify?.(delivery(block({ signature: sign(TIMESTAMP, TOKEN, 'another key') }))),
    ).toBe(false);
    expect(preset.verify?.(delivery(block({ token: `${TOKEN.slice(0, -1)}4` })))).toBe(false);
    expect(preset.verify?.(delivery(block({ timestamp: '1770920773' })))).toBe(false);
    expect(preset.verify?.(delivery(block({ signature: undefined })))).toBe(false);
    expect(preset.verify?.(jsonRequest({ 'event-data': eventData }))).toBe(false);
    // A parsed body (express.json() without the raw bytes) is read the same way.
    const parsed = jsonRequest(
      { signature: block(), 'event-data': eventData },
      { parsed: true, raw: false },
    );
    expect(preset.verify?.(parsed)).toBe(true);
  });

  it("accepts a subaccount's parent-signature", () => {
    const parent = block({
      signature: sign(TIMESTAMP, TOKEN, 'the subaccount key'),
      'parent-signature': sign(),
    });
    expect(preset.verify?.(delivery(parent))).toBe(true);
  });

  it('does not sign the event data: a captured signature passes with other event data, unless a tolerance bounds it', () => {
    const forged = { ...eventData, id: 'forged-event', event: 'failed' };
    expect(preset.verify?.(delivery(block(), forged))).toBe(true);
    const bounded = mailgun({
      signingKey: KEY,
      toleranceSeconds: 300,
      clock: clockAt(Number(TIMESTAMP) + 301),
    });
    expect(bounded.verify?.(delivery(block(), forged))).toBe(false);
    const fresh = mailgun({
      signingKey: KEY,
      toleranceSeconds: 300,
      clock: clockAt(Number(TIMESTAMP) + 299),
    });
    expect(fresh.verify?.(delivery(block()))).toBe(true);
  });

  it('fingerprints the event data alone: a retry signed with another token is the same delivery', () => {
    const retry = block({ token: 'f'.repeat(50), timestamp: '1770921372' });
    expect(preset.fingerprint?.(delivery(retry))).toBe(preset.fingerprint?.(delivery(block())));
    const other = { ...eventData, event: 'failed' };
    expect(preset.fingerprint?.(delivery(block(), other))).not.toBe(
      preset.fingerprint?.(delivery(block())),
    );
  });

  it.each([
    [undefined, 'options'],
    [{}, 'signingKey'],
    [{ signingKey: KEY, toleranceSeconds: -1 }, 'toleranceSeconds'],
    [{ signingKey: KEY, clock: 'now' }, 'clock'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => mailgun(options as never)).toThrow(ConfigError);
    expect(() => mailgun(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
