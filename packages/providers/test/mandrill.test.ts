import { createHash, createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { canonicalJson } from '@webhook-idempotency/core/adapter';
import { mandrill } from '../src';
import { formRequest } from './helpers';

// No SDK verifies Mandrill's signature and its help page publishes no example: judged by a
// node:crypto digest of the documented formula (base64 HMAC-SHA1 of the URL as entered, then
// each POST parameter's name and value, sorted by name).
const KEY = 'mandrill-webhook-key-of-ours';
const URL = 'https://example.com/webhooks/mandrill?tenant=7';
const EVENTS = [
  { event: 'send', _id: 'msg-1', ts: 1765022400, msg: { email: 'a@example.com' } },
  { event: 'click', _id: 'msg-1', ts: 1765022460, url: 'https://example.com/a' },
  { type: 'whitelist', action: 'add', entry: { email: 'b@example.com' } },
];
const sign = (fields: Record<string, string>, url = URL, key = KEY) => {
  const text = Object.keys(fields)
    .sort()
    .map((name) => name + fields[name])
    .join('');
  return createHmac('sha1', key)
    .update(url + text)
    .digest('base64');
};
const request = (fields: Record<string, string>, signature = sign(fields)) =>
  formRequest(fields, { headers: { 'x-mandrill-signature': signature } });
const batch = { mandrill_events: JSON.stringify(EVENTS) };
const keyOf = (event: object) =>
  `sha256:${createHash('sha256').update(canonicalJson(event)).digest('hex')}`;

describe('mandrill preset', () => {
  const preset = mandrill({ webhookKey: KEY, webhookUrl: URL });

  it('describes itself; each event is an item keyed on its content, named by event or type', () => {
    expect(preset).toMatchObject({ provider: 'mandrill', needsRawBody: false, retentionDays: 7 });
    const items = preset.items?.(request(batch));
    expect(items?.map((item) => item.key)).toEqual(EVENTS.map(keyOf));
    expect(items?.map((item) => preset.itemType?.(item.value))).toEqual([
      'send',
      'click',
      'whitelist',
    ]);
    expect(preset.key(request(batch))).toBeUndefined();
  });

  it('accepts the documented formula, raw or parsed, with parameters in any order', () => {
    expect(preset.verify?.(request(batch))).toBe(true);
    expect(
      preset.verify?.(
        formRequest(batch, {
          headers: { 'x-mandrill-signature': sign(batch) },
          parsed: true,
          raw: false,
        }),
      ),
    ).toBe(true);
    const two = { z: '1', ...batch };
    expect(preset.verify?.(request(two))).toBe(true);
  });

  it('refuses another key, another URL spelling, changed events, an added parameter, no header', () => {
    expect(preset.verify?.(request(batch, sign(batch, URL, 'another key')))).toBe(false);
    expect(preset.verify?.(request(batch, sign(batch, `${URL}/`)))).toBe(false);
    const changed = { mandrill_events: JSON.stringify(EVENTS.slice(1)) };
    expect(preset.verify?.(request(changed, sign(batch)))).toBe(false);
    expect(preset.verify?.(request({ ...batch, extra: 'x' }, sign(batch)))).toBe(false);
    expect(preset.verify?.(formRequest(batch))).toBe(false);
    // A form without the events is not a delivery.
    expect(preset.verify?.(request({ other: '1' }))).toBe(false);
  });

  it('takes the URL as a function of the request, and old and new keys while you reset one', () => {
    const perTenant = mandrill({ webhookKey: ['old', KEY], webhookUrl: () => URL });
    expect(perTenant.verify?.(request(batch))).toBe(true);
    expect(perTenant.verify?.(request(batch, sign(batch, URL, 'old')))).toBe(true);
  });

  it('refuses bad options by name', () => {
    expect(() => mandrill({ webhookKey: '', webhookUrl: URL })).toThrow(ConfigError);
    expect(() => mandrill({ webhookKey: KEY } as never)).toThrow(
      expect.objectContaining({ option: 'webhookUrl' }),
    );
    expect(() => mandrill({ webhookKey: KEY, webhookUrl: '/relative' })).toThrow(
      expect.objectContaining({ option: 'webhookUrl' }),
    );
  });
});
