import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { hmac, type HmacOptions } from '../src';
import { jsonRequest, oneTenant } from './helpers';

const SECRET = 'batch secret';
const options: HmacOptions = {
  provider: 'acme-batch',
  secret: SECRET,
  signatureHeader: 'x-acme-signature',
  items: { json: 'data.events', id: 'meta.id', type: 'kind' },
  retentionDays: 3,
};
const signed = (text: string, secret = SECRET) =>
  jsonRequest(text, {
    headers: { 'x-acme-signature': createHmac('sha256', secret).update(text).digest('hex') },
  });

describe('hmac({ items }): several events in one signed request', () => {
  const body = JSON.stringify({
    data: {
      events: [
        { meta: { id: 'e-1' }, kind: 'order.paid' },
        { meta: { id: 42 }, kind: 'order.shipped' },
        { kind: 'no id' },
      ],
    },
  });

  it('verifies the request as a whole and keys each event by its id (numbers by value), in order', () => {
    const preset = hmac(options);
    const request = signed(body);
    expect(preset.verify?.(request)).toBe(true);
    expect(preset.verify?.(signed(body, 'another secret'))).toBe(false);
    expect(preset.items?.(request)?.map((item) => item.key)).toEqual(['e-1', '42', undefined]);
    expect(preset.items?.(request)?.[0]?.value).toEqual({
      meta: { id: 'e-1' },
      kind: 'order.paid',
    });
    expect(preset.itemType?.({ kind: 'order.paid' })).toBe('order.paid');
    expect(preset.eventType(request)).toBeUndefined();
    expect(preset.keyDescription).toBe('data.events[] with an id on each');
  });

  it('leaves a body without the array to `key`, which there is none of', () => {
    const preset = hmac(options);
    const request = signed('{"data":{"events":{}}}');
    expect(preset.items?.(request)).toBeUndefined();
    expect(preset.key(request)).toBeUndefined();
    expect(
      hmac({ ...options, key: 'x-id' }).key(jsonRequest('{}', { headers: { 'x-id': 'k' } })),
    ).toBe('k');
  });

  it('reads ids and names with functions, and scopes ids by the tenant that verified the request', async () => {
    const preset = hmac({
      ...options,
      ...oneTenant('t1', SECRET),
      items: {
        json: 'data.events',
        id: (item) => (item as { kind?: string }).kind,
        type: () => 'fixed',
      },
    });
    const request = { ...signed(body), headers: { ...signed(body).headers, 'x-tenant': 't1' } };
    expect(await preset.verify?.(request)).toBe(true);
    expect(preset.items?.(request)?.map((item) => item.key)).toEqual([
      't1:order.paid',
      't1:order.shipped',
      't1:no id',
    ]);
    expect(preset.itemType?.({})).toBe('fixed');
  });

  it.each([
    [{ items: 'events' }, 'items'],
    [{ items: { json: '', id: 'id' } }, 'items.json'],
    [{ items: { json: 'a..b', id: 'id' } }, 'items.json'],
    [{ items: { json: 'events', id: 3 } }, 'items.id'],
    [{ items: { json: 'events', id: 'id', type: '' } }, 'items.type'],
    [{ items: undefined }, 'key'],
  ])('%j throws a ConfigError naming %s', (extra, option) => {
    const build = () => hmac({ ...options, ...extra } as never);
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(expect.objectContaining({ option }));
  });
});

describe('hmac({ unauthorizedStatus }): the provider documents another status than 401', () => {
  it('answers a failed verification with that status and the engine error body', () => {
    const preset = hmac({ ...options, unauthorizedStatus: 498 });
    const answer = preset.unauthorized?.(signed('{}'));
    expect(answer?.status).toBe(498);
    expect(JSON.parse(answer?.body.toString() ?? '')).toMatchObject({
      code: 'ERR_IDEMPOTENCY_SIGNATURE_INVALID',
    });
    expect(hmac(options).unauthorized).toBeUndefined();
  });

  it.each([[401.5], [500], [200], ['498']])('refuses %j as a ConfigError', (status) => {
    expect(() => hmac({ ...options, unauthorizedStatus: status as never })).toThrow(
      expect.objectContaining({ option: 'unauthorizedStatus' }),
    );
  });
});

it('hmac({ items: { fingerprintOmit } }): an event redelivered with other bookkeeping keeps its fingerprint', () => {
  const preset = hmac({
    ...options,
    items: { json: 'events', id: 'id', fingerprintOmit: ['delivery'] },
  });
  const print = (delivery: object, amount = 1) =>
    preset.items?.(signed(JSON.stringify({ events: [{ id: 'e', amount, delivery }] })))?.[0]
      ?.fingerprint;
  expect(print({ redelivered: false })).toMatch(/^[0-9a-f]{64}$/);
  expect(print({ redelivered: true })).toBe(print({ redelivered: false }));
  expect(print({ redelivered: false }, 2)).not.toBe(print({ redelivered: false }));
  expect(() => hmac({ ...options, items: { json: 'e', id: 'id', fingerprintOmit: [''] } })).toThrow(
    expect.objectContaining({ option: 'items.fingerprintOmit' }),
  );
});
