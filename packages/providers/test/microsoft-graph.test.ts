import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { microsoftGraph } from '../src';
import { makeRequest } from './helpers';

// Graph signs basic change notifications with nothing but the subscription's `clientState`,
// echoed in each notification of `value[]`; a new subscription is validated by a POST with
// `?validationToken=` answered 200 text/plain with the token
// (learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks, resources
// changenotification and changenotificationcollection). No SDK verifies it offline: the test's own
// clientState, and the test kit's deliveries.
const STATE = 'a graph client state';
const note = (id: string, changeType = 'updated', etag = 'W/"1"') => ({
  subscriptionId: '7f105c7d-2dc5-4530-97cd-4e7ae6534c07',
  subscriptionExpirationDateTime: '2026-12-03T11:00:00.0000000Z',
  changeType,
  resource: `Users/u1/Messages/${id}`,
  resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.etag': etag, id },
  clientState: STATE,
  tenantId: '84bd8158-6d4d-4958-8b9f-9d6445542f95',
});
const post = (body: unknown, url = '/webhooks/graph') =>
  makeRequest({ url, rawBody: JSON.stringify(body) });

describe('microsoftGraph preset', () => {
  const preset = microsoftGraph({ clientState: STATE });

  it('keys each notification of value[] on a digest of what changed, and names it by changeType', () => {
    expect(preset).toMatchObject({
      provider: 'microsoft-graph',
      needsRawBody: false,
      retentionDays: 3,
    });
    const items = preset.items?.(post({ value: [note('m1'), note('m2', 'created')] })) ?? [];
    expect(items).toHaveLength(2);
    for (const item of items) expect(item.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(items.map((item) => preset.itemType?.(item.value))).toEqual(['updated', 'created']);
    const keyOf = (n: object) => preset.items?.(post({ value: [n] }))?.[0]?.key;
    const fingerprintOf = (n: object) => preset.items?.(post({ value: [n] }))?.[0]?.fingerprint;
    // A retry after a renewal keeps the key and the fingerprint; another change (another etag) gets another key.
    const renewed = { ...note('m1'), subscriptionExpirationDateTime: '2026-12-04T11:00:00Z' };
    expect(keyOf(renewed)).toBe(keyOf(note('m1')));
    // (The engine's default, a digest of the whole notification, would differ.)
    expect(fingerprintOf(renewed)).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
    expect(fingerprintOf(renewed)).toBe(fingerprintOf(note('m1')));
    expect(keyOf(note('m1', 'updated', 'W/"2"'))).not.toBe(keyOf(note('m1')));
    const lifecycle = {
      subscriptionId: 's',
      lifecycleEvent: 'reauthorizationRequired',
      clientState: STATE,
    };
    expect(preset.itemType?.(lifecycle)).toBe('reauthorizationRequired');
    expect(preset.items?.(post({ value: [] }))).toBeUndefined();
  });

  it.each([
    ['every notification with the clientState', [note('m1'), note('m2')], true],
    [
      'one notification with another clientState',
      [note('m1'), { ...note('m2'), clientState: 'x' }],
      false,
    ],
    ['a notification without clientState', [{ ...note('m1'), clientState: undefined }], false],
    ['no notifications', [], false],
  ])('verifies %s', (_label, value, accepted) => {
    expect(preset.verify?.(post({ value }))).toBe(accepted);
  });

  it('answers the validation POST with its token as text, and nothing with a body', () => {
    const token =
      'Validation: Testing client application reachability for subscription Request-Id: 1';
    const url = `/webhooks/graph?validationToken=${encodeURIComponent(token)}`;
    const validation = makeRequest({ url, rawBody: '' });
    expect(preset.verify?.(validation)).toBe(true);
    const answer = preset.handshake?.(validation);
    expect([answer?.status, answer?.body.toString()]).toEqual([200, token]);
    expect(answer?.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer?.headers['x-content-type-options']).toBe('nosniff');
    // A notification POSTed to a URL with a validationToken is a delivery: no echo, and verified as one.
    const withBody = post({ value: [{ ...note('m1'), clientState: 'x' }] }, url);
    expect(preset.handshake?.(withBody)).toBeUndefined();
    expect(preset.verify?.(withBody)).toBe(false);
    expect(preset.handshake?.(makeRequest({ method: 'GET', url }))).toBeUndefined();
  });

  it("accepts the test kit's batch and its retry, refuses its forged copy, and answers its validation", () => {
    const signer = kit.microsoftGraph({ clientState: STATE });
    const asRequest = (d: kit.Delivery) =>
      makeRequest({ url: d.path, headers: d.headers, rawBody: d.body });
    const delivery = signer.batch([note('m1')]);
    expect(preset.verify?.(asRequest(delivery))).toBe(true);
    expect(preset.items?.(asRequest(delivery.retry()))?.[0]?.key).toBe(
      preset.items?.(asRequest(delivery))?.[0]?.key,
    );
    expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
    const validation = signer.validation();
    expect(preset.verify?.(asRequest(validation))).toBe(true);
    expect(preset.handshake?.(asRequest(validation))?.body.toString()).toBe(validation.answer);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'clientState'],
    [{ clientState: '' }, 'clientState'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => microsoftGraph(options as never)).toThrow(ConfigError);
    expect(() => microsoftGraph(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
