import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { chargebee } from '../src';
import { jsonRequest, makeRequest } from './helpers';

// Chargebee signs nothing: "Protect webhook URL with basic authentication" makes it send the pair
// as HTTP Basic (chargebee.com/docs/2.0/webhook_settings.html). An event is `{ id: 'ev_…',
// event_type, content, … }` (apidocs.chargebee.com/docs/api/events). No SDK verifies anything: the
// test's own credentials, and the test kit's delivery.
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const EVENT = {
  id: 'ev_16BHbhF4s42tO2lK',
  occurred_at: 1733306400,
  event_type: 'subscription_created',
  api_version: 'v2',
  content: { subscription: { id: '16BHbhF4s42tO2lJ', status: 'active' } },
};
const request = (payload: object, authorization?: string) =>
  jsonRequest(payload, { headers: authorization === undefined ? {} : { authorization } });

describe('chargebee preset', () => {
  const preset = chargebee({ username: 'chargebee', password: 'correct horse battery staple' });

  it('keys on the event id, names the event by event_type, and keeps receipts 30 days', () => {
    expect(preset).toMatchObject({ provider: 'chargebee', needsRawBody: false, retentionDays: 30 });
    expect(preset.key(request(EVENT))).toBe('ev_16BHbhF4s42tO2lK');
    expect(preset.eventType(request(EVENT))).toBe('subscription_created');
    expect(preset.key(request({ ...EVENT, id: '' }))).toBeUndefined();
    expect(preset.key(request({ event_type: 'subscription_created' }))).toBeUndefined();
  });

  it.each([
    ['the right pair', basic('chargebee', 'correct horse battery staple'), true],
    ['another password', basic('chargebee', 'wrong'), false],
    ['another user', basic('other', 'correct horse battery staple'), false],
    ['a bearer token', 'Bearer correct horse battery staple', false],
    ['no Authorization header', undefined, false],
  ])('verifies %s', (_label, authorization, accepted) => {
    expect(preset.verify?.(request(EVENT, authorization))).toBe(accepted);
  });

  it("accepts the test kit's delivery and its retry, under the same key, and refuses its forged copy", () => {
    const delivery = kit
      .chargebee({ username: 'chargebee', password: 'correct horse battery staple' })
      .event(EVENT);
    const asRequest = (d: kit.Delivery) =>
      makeRequest({ url: d.path, headers: d.headers, rawBody: d.body });
    expect(preset.verify?.(asRequest(delivery))).toBe(true);
    expect(preset.verify?.(asRequest(delivery.retry()))).toBe(true);
    expect(preset.key(asRequest(delivery.retry()))).toBe(EVENT.id);
    expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
  });

  it.each([
    [{ username: '', password: 'x' }, 'username'],
    [{ username: 'a:b', password: 'x' }, 'username'],
    [{ username: 'a', password: '' }, 'password'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => chargebee(options)).toThrow(ConfigError);
    expect(() => chargebee(options)).toThrow(expect.objectContaining({ option }));
  });
});
