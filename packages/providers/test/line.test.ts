import { createHmac } from 'node:crypto';
import { validateSignature } from '@line/bot-sdk';
import { ConfigError } from '@webhook-idempotency/core';
import { line } from '../src';
import { jsonRequest } from './helpers';

const SECRET = 'line channel secret';
const event = (id: string, type = 'message', isRedelivery = false) => ({
  type,
  mode: 'active',
  timestamp: 1_767_225_600_000,
  source: { type: 'user', userId: 'U4af4980629' },
  webhookEventId: id,
  deliveryContext: { isRedelivery },
  message: { type: 'text', id: '444573844083572737', text: 'hi' },
});
const bodyOf = (events: readonly object[]) =>
  JSON.stringify({ destination: 'Uxxxxxxxxxxxxxx', events });
const sign = (text: string, secret = SECRET) =>
  createHmac('sha256', secret).update(text).digest('base64');
const request = (text: string, signature = sign(text)) =>
  jsonRequest(text, { headers: { 'x-line-signature': signature } });

describe('line preset', () => {
  const preset = line({ channelSecret: SECRET });
  const body = bodyOf([
    event('01FZ74A0TDDPYRVKNK77XKC3ZR'),
    event('01FZ74ASS536FW97EX38NKCZQK', 'follow'),
  ]);

  it('describes itself: 7 days, raw body, a batch with no key of its own', () => {
    expect(preset).toMatchObject({ provider: 'line', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(body))).toBeUndefined();
  });

  it('accepts what the channel secret signs, as @line/bot-sdk judges it; refuses a forged or altered one', () => {
    const signature = sign(body);
    expect(validateSignature(body, SECRET, signature)).toBe(true);
    expect(preset.verify?.(request(body, signature))).toBe(true);
    const altered = body.replace('"hi"', '"ho"');
    expect(validateSignature(altered, SECRET, signature)).toBe(false);
    expect(preset.verify?.(request(altered, signature))).toBe(false);
    expect(preset.verify?.(request(body, sign(body, 'another')))).toBe(false);
    expect(
      preset.verify?.(request(body, createHmac('sha256', SECRET).update(body).digest('hex'))),
    ).toBe(false);
    expect(preset.verify?.(jsonRequest(body))).toBe(false);
  });

  it('books each event under its webhookEventId; a redelivered event keeps its fingerprint', () => {
    const items = preset.items?.(request(body));
    expect(items?.map((item) => item.key)).toEqual([
      '01FZ74A0TDDPYRVKNK77XKC3ZR',
      '01FZ74ASS536FW97EX38NKCZQK',
    ]);
    expect(items?.map((item) => preset.itemType?.(item.value))).toEqual(['message', 'follow']);
    const again = preset.items?.(
      request(bodyOf([event('01FZ74A0TDDPYRVKNK77XKC3ZR', 'message', true)])),
    );
    expect(again?.[0]?.fingerprint).toBe(items?.[0]?.fingerprint);
    const other = { ...event('01FZ74A0TDDPYRVKNK77XKC3ZR'), message: { type: 'text', text: 'x' } };
    expect(preset.items?.(request(bodyOf([other])))?.[0]?.fingerprint).not.toBe(
      items?.[0]?.fingerprint,
    );
  });

  it("answers the console's signed verification (no events) itself; a batch is no handshake", () => {
    const verification = bodyOf([]);
    expect(preset.verify?.(request(verification))).toBe(true);
    expect(preset.handshake?.(request(verification))).toMatchObject({ status: 200 });
    expect(preset.handshake?.(request(body))).toBeUndefined();
  });

  it('takes the old and the new channel secret while it is reissued', () => {
    const both = line({ channelSecret: ['old channel secret', SECRET] });
    expect(both.verify?.(request(body, sign(body, 'old channel secret')))).toBe(true);
    expect(both.verify?.(request(body))).toBe(true);
    expect(both.verify?.(request(body, sign(body, 'third')))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'channelSecret'],
    [{ channelSecret: '' }, 'channelSecret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => line(options as never)).toThrow(ConfigError);
    expect(() => line(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
