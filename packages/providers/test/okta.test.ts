import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { okta } from '../src';
import { makeRequest } from './helpers';

// Okta signs nothing: an event hook sends the "Authentication secret" in the header named by its
// "Authentication field", and verifies the endpoint once with a GET carrying
// `X-Okta-Verification-Challenge`, answered `{"verification": …}` (developer.okta.com/docs/concepts/event-hooks,
// support.okta.com "Unable to verify event hook", which shows that GET with its Authorization
// header). No SDK or vector: the test's own secret, and the test kit's deliveries.
const SECRET = 'an okta hook secret';
const event = (uuid: string, eventType = 'user.session.start') => ({
  uuid,
  eventType,
  published: '2026-12-01T10:00:00.000Z',
  actor: { id: '00u1', type: 'User' },
});
const BODY = {
  eventType: 'com.okta.event_hook',
  eventTypeVersion: '1.0',
  eventId: 'b5a188b9-5ece-4636-b041-482ffda96311',
  data: {
    events: [
      event('f8ec1c7c-1e04-11f1-a9f3-6f3d2b0c0001'),
      event('f8ec1c7c-1e04-11f1-a9f3-6f3d2b0c0002', 'user.lifecycle.create'),
    ],
  },
};
const post = (headers: Record<string, string>, body: object = BODY) =>
  makeRequest({ rawBody: JSON.stringify(body), headers });
const get = (headers: Record<string, string>) => makeRequest({ method: 'GET', headers });

describe('okta preset', () => {
  const preset = okta({ secret: SECRET });

  it('keys each event of data.events on its uuid, names it by eventType, keeps receipts 3 days', () => {
    expect(preset).toMatchObject({ provider: 'okta', needsRawBody: false, retentionDays: 3 });
    const items = preset.items?.(post({ authorization: SECRET })) ?? [];
    expect(items.map((item) => item.key)).toEqual(BODY.data.events.map((e) => e.uuid));
    expect(items.map((item) => preset.itemType?.(item.value))).toEqual([
      'user.session.start',
      'user.lifecycle.create',
    ]);
    const [bare] = preset.items?.(post({}, { data: { events: [{ eventType: 'x' }] } })) ?? [];
    expect(bare?.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(preset.items?.(post({}, { data: {} }))).toBeUndefined();
  });

  it.each([
    ['the secret', { authorization: SECRET }, true],
    ['another secret', { authorization: 'guess' }, false],
    ['the secret in another header', { 'x-okta-secret': SECRET }, false],
    ['no header', {}, false],
  ])('verifies %s', (_label, headers, accepted) => {
    expect(preset.verify?.(post(headers))).toBe(accepted);
  });

  it('reads the secret from the configured header instead', () => {
    const custom = okta({ secret: SECRET, header: 'X-Okta-Secret' });
    expect(custom.verify?.(post({ 'x-okta-secret': SECRET }))).toBe(true);
    expect(custom.verify?.(post({ authorization: SECRET }))).toBe(false);
  });

  it('answers the verification GET with its challenge once its header secret matched, 401 otherwise', () => {
    const challenge = { 'x-okta-verification-challenge': 'Me_rShK8JHsTnbyYrWXCEoMGbM' };
    const answer = preset.challenge?.(get({ ...challenge, authorization: SECRET }));
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body.toString())).toEqual({
      verification: 'Me_rShK8JHsTnbyYrWXCEoMGbM',
    });
    expect(answer?.headers['x-content-type-options']).toBe('nosniff');
    const refused = preset.challenge?.(get({ ...challenge, authorization: 'guess' }));
    expect(refused?.status).toBe(401);
    expect(refused?.body.toString()).not.toContain('Me_rShK8JHsTnbyYrWXCEoMGbM');
    expect(preset.challenge?.(get({ authorization: SECRET }))).toBeUndefined();
  });

  it('with resolveSecret, answers the GET of a tenant already looked up; any other passes to the route', async () => {
    const resolved = okta({
      resolveSecret: { tenant: (r) => r.headers['x-tenant'] as string, secrets: () => SECRET },
    });
    const challenge = {
      'x-okta-verification-challenge': 'c1',
      authorization: SECRET,
      'x-tenant': 'a',
    };
    expect(resolved.challenge?.(get(challenge))).toBeUndefined();
    expect(await resolved.verify?.(post({ authorization: SECRET, 'x-tenant': 'a' }))).toBe(true);
    expect(resolved.challenge?.(get(challenge))?.status).toBe(200);
  });

  it("accepts the test kit's batch and its retry, refuses its forged copy, and answers its challenge", () => {
    const signer = kit.okta({ secret: SECRET });
    const asRequest = (d: { path: string; headers: object; body: Buffer; method: string }) =>
      makeRequest({ method: d.method, url: d.path, headers: { ...d.headers }, rawBody: d.body });
    const delivery = signer.batch([event('kit-1')]);
    expect(preset.verify?.(asRequest(delivery))).toBe(true);
    expect(preset.items?.(asRequest(delivery.retry()))?.map((item) => item.key)).toEqual(['kit-1']);
    expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
    const challenge = signer.challenge();
    expect(preset.challenge?.(asRequest(challenge))?.body.toString()).toBe(challenge.answer);
    expect(preset.challenge?.(asRequest(challenge.forged()))?.status).toBe(401);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
    [{ secret: 's', header: '' }, 'header'],
    [{ secret: 's', header: 'not a header' }, 'header'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => okta(options as never)).toThrow(ConfigError);
    expect(() => okta(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
