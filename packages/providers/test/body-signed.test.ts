import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { checkout, intercom, vercel } from '../src';
import { jsonRequest } from './helpers';

// Each provider's documented scheme: Checkout.com ("Set up your webhook receiver": Cko-Signature,
// hex HMAC-SHA256 of the body) and Vercel (x-vercel-signature, hex HMAC-SHA1 of the body).
const cases = [
  {
    name: 'checkout',
    factory: checkout,
    header: 'cko-signature',
    algorithm: 'sha256',
    body: JSON.stringify({
      id: 'evt_az5sblvku4ge3dwpztvyizgcau',
      type: 'payment_approved',
      data: {},
    }),
    id: 'evt_az5sblvku4ge3dwpztvyizgcau',
  },
  {
    name: 'vercel',
    factory: vercel,
    header: 'x-vercel-signature',
    algorithm: 'sha1',
    body: JSON.stringify({
      id: 'Ad7fV5IX3kcCsqE0JU3L8LfB',
      type: 'deployment.succeeded',
      payload: {},
    }),
    id: 'Ad7fV5IX3kcCsqE0JU3L8LfB',
  },
  {
    name: 'intercom',
    factory: intercom,
    header: 'x-hub-signature',
    algorithm: 'sha1',
    prefix: 'sha1=',
    body: JSON.stringify({
      type: 'notification_event',
      id: 'notif_4e3504a3-ba3f-46dc-ab48-8e4d5bdfdf4e',
      topic: 'conversation.user.created',
    }),
    id: 'notif_4e3504a3-ba3f-46dc-ab48-8e4d5bdfdf4e',
  },
] as const;

describe.each(cases)('$name preset', (entry) => {
  const { name, factory, header, algorithm, body, id } = entry;
  const prefix = 'prefix' in entry ? entry.prefix : '';
  const SECRET = `${name} secret`;
  const preset = factory({ secret: SECRET });
  const sign = (text: string = body, secret = SECRET) =>
    prefix + createHmac(algorithm, secret).update(text).digest('hex');
  const request = (signature: string | undefined, text: string = body) =>
    jsonRequest(text, { headers: signature === undefined ? {} : { [header]: signature } });

  it('describes itself and keys on the event id in the body', () => {
    expect(preset).toMatchObject({ provider: name, needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe(id);
    expect(preset.key(request(undefined, '{"type":"x"}'))).toBeUndefined();
  });

  it('accepts the documented signature and refuses a tampered body, another secret or digest', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), body.replace('"type"', '"kind"')))).toBe(false);
    expect(preset.verify?.(request(sign(body, 'another')))).toBe(false);
    const otherDigest = algorithm === 'sha1' ? 'sha256' : 'sha1';
    expect(
      preset.verify?.(request(prefix + createHmac(otherDigest, SECRET).update(body).digest('hex'))),
    ).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => factory(options as never)).toThrow(ConfigError);
    expect(() => factory(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

it('intercom: a retry whose delivery bookkeeping changed has the same fingerprint; another notification body does not', () => {
  const preset = intercom({ secret: 'intercom secret' });
  const notification = {
    type: 'notification_event',
    id: 'notif_1',
    topic: 'conversation.user.created',
    data: { item: { id: '1' } },
  };
  const fingerprint = (body: Record<string, unknown>) =>
    preset.fingerprint?.(jsonRequest(JSON.stringify(body)));
  const first = fingerprint({ ...notification, delivery_attempts: 1, delivery_status: 'pending' });
  expect(first).toMatch(/^[0-9a-f]{64}$/);
  expect(
    fingerprint({
      ...notification,
      delivery_attempts: 2,
      delivery_status: 'retry',
      first_sent_at: 1,
    }),
  ).toBe(first);
  expect(fingerprint({ ...notification, data: { item: { id: '2' } } })).not.toBe(first);
});
