import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { parse } from 'gocardless-nodejs/webhooks';
import { gocardless } from '../src';
import { jsonRequest } from './helpers';

const SECRET = 'gocardless endpoint secret';
const event = (id: string, resource_type = 'payments', action = 'confirmed') => ({
  id,
  created_at: '2026-12-01T12:00:00.000Z',
  resource_type,
  action,
  links: { payment: 'PM000123' },
  details: { origin: 'gocardless', cause: 'payment_confirmed' },
  metadata: {},
});
const bodyOf = (events: readonly object[]) =>
  JSON.stringify({ events, meta: { webhook_id: 'WB0000ABC123' } });
const sign = (text: string, secret = SECRET) =>
  createHmac('sha256', secret).update(text).digest('hex');
const request = (text: string, signature = sign(text)) =>
  jsonRequest(text, { headers: { 'webhook-signature': signature } });
/** Whether gocardless-nodejs's own parser accepts the body under the signature. */
const sdkAccepts = (text: string, signature: string) => {
  try {
    return Array.isArray(parse(text, SECRET, signature));
  } catch {
    return false;
  }
};

describe('gocardless preset', () => {
  const preset = gocardless({ secret: SECRET });
  const body = bodyOf([event('EV0001'), event('EV0002', 'mandates', 'active')]);

  it('describes itself: 14 days, raw body, a batch with no key of its own', () => {
    expect(preset).toMatchObject({ provider: 'gocardless', needsRawBody: true, retentionDays: 14 });
    expect(preset.key(request(body))).toBeUndefined();
  });

  it('accepts what the endpoint secret signs, as gocardless-nodejs judges it; refuses a forged or altered one', () => {
    const signature = sign(body);
    expect(sdkAccepts(body, signature)).toBe(true);
    expect(preset.verify?.(request(body, signature))).toBe(true);
    const altered = body.replace('PM000123', 'PM000124');
    expect(sdkAccepts(altered, signature)).toBe(false);
    expect(preset.verify?.(request(altered, signature))).toBe(false);
    expect(preset.verify?.(request(body, sign(body, 'another')))).toBe(false);
    expect(preset.verify?.(jsonRequest(body))).toBe(false);
  });

  it('answers a failed verification 498 (Token Invalid), as GoCardless requires', () => {
    const answer = preset.unauthorized?.(request(body, sign(body, 'another')));
    expect(answer?.status).toBe(498);
    expect(JSON.parse(answer?.body.toString() ?? '')).toMatchObject({
      code: 'ERR_IDEMPOTENCY_SIGNATURE_INVALID',
    });
  });

  it('books each event under its id, named by its resource type; meta.webhook_id is no key', () => {
    const items = preset.items?.(request(body));
    expect(items?.map((item) => item.key)).toEqual(['EV0001', 'EV0002']);
    expect(items?.map((item) => preset.itemType?.(item.value))).toEqual(['payments', 'mandates']);
    const inAnother = JSON.stringify({ events: [event('EV0001')], meta: { webhook_id: 'WB9' } });
    expect(preset.items?.(request(inAnother))?.[0]).toEqual(items?.[0]);
  });

  it('takes the old and the new endpoint secret while it is replaced', () => {
    const both = gocardless({ secret: ['old endpoint secret', SECRET] });
    expect(both.verify?.(request(body, sign(body, 'old endpoint secret')))).toBe(true);
    expect(both.verify?.(request(body))).toBe(true);
    expect(both.verify?.(request(body, sign(body, 'third')))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => gocardless(options as never)).toThrow(ConfigError);
    expect(() => gocardless(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
