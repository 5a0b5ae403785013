import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { azureEventGrid } from '../src';
import { makeRequest } from './helpers';

// Event Grid signs nothing: a webhook endpoint is authenticated by a secret in its URL's query,
// and validated by a SubscriptionValidationEvent answered {"validationResponse": code}
// (learn.microsoft.com/en-us/azure/event-grid/webhook-event-delivery, and
// .../secure-webhook-delivery); events are arrays in the Event Grid schema or CloudEvents 1.0
// (.../event-schema, .../cloud-event-schema). No SDK verifies anything: the test's own secret.
const SECRET = 'an event grid url secret';
const event = (id: string, eventType = 'Microsoft.Storage.BlobCreated') => ({
  id,
  topic: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct',
  subject: `/blobServices/default/containers/c/blobs/${id}.txt`,
  eventType,
  eventTime: '2026-12-01T10:00:00.0000000Z',
  data: { api: 'PutBlob' },
  dataVersion: '',
  metadataVersion: '1',
});
const at = (secret?: string, parameter = 'code') =>
  secret === undefined
    ? '/webhooks/grid'
    : `/webhooks/grid?${parameter}=${encodeURIComponent(secret)}`;
const post = (body: unknown, url = at(SECRET)) =>
  makeRequest({ url, rawBody: JSON.stringify(body) });

describe('azureEventGrid preset', () => {
  const preset = azureEventGrid({ secret: SECRET });

  it('keys each event on its id and names it by eventType or a CloudEvent type', () => {
    expect(preset).toMatchObject({
      provider: 'azure-event-grid',
      needsRawBody: false,
      retentionDays: 3,
    });
    const items = preset.items?.(post([event('e1'), event('e2', 'Microsoft.Storage.BlobDeleted')]));
    expect(items?.map((item) => item.key)).toEqual(['e1', 'e2']);
    expect(items?.map((item) => preset.itemType?.(item.value))).toEqual([
      'Microsoft.Storage.BlobCreated',
      'Microsoft.Storage.BlobDeleted',
    ]);
    const cloud = {
      specversion: '1.0',
      id: 'ce-1',
      type: 'Microsoft.Storage.BlobCreated',
      source: 's',
    };
    const one = preset.items?.(post(cloud));
    expect(one?.map((item) => [item.key, preset.itemType?.(item.value)])).toEqual([
      ['ce-1', 'Microsoft.Storage.BlobCreated'],
    ]);
    expect(preset.items?.(post([]))).toBeUndefined();
  });

  it.each([
    ['the secret in ?code=', at(SECRET), true],
    ['another secret', at('guess'), false],
    ['the secret under another parameter', at(SECRET, 'key'), false],
    ['no secret', at(), false],
  ])('verifies %s', (_label, url, accepted) => {
    expect(preset.verify?.(post([event('e1')], url))).toBe(accepted);
  });

  it('reads the secret from the configured query parameter instead', () => {
    const custom = azureEventGrid({ secret: SECRET, queryParameter: 'key' });
    expect(custom.verify?.(post([event('e1')], at(SECRET, 'key')))).toBe(true);
    expect(custom.verify?.(post([event('e1')], at(SECRET)))).toBe(false);
  });

  it('answers the subscription validation event with its code, and refuses one without a code', () => {
    const validation = {
      ...event('v1', 'Microsoft.EventGrid.SubscriptionValidationEvent'),
      data: { validationCode: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6' },
    };
    const answer = preset.handshake?.(post([validation]));
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body.toString())).toEqual({
      validationResponse: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6',
    });
    expect(preset.handshake?.(post([{ ...validation, data: {} }]))?.status).toBe(400);
    expect(preset.handshake?.(post([event('e1')]))).toBeUndefined();
  });

  it("accepts the test kit's batch and its retry, refuses its forged copy, and answers its validation", () => {
    const signer = kit.azureEventGrid({ secret: SECRET });
    const asRequest = (d: kit.Delivery) =>
      makeRequest({ url: d.path, headers: d.headers, rawBody: d.body });
    const delivery = signer.batch([event('kit-1')]);
    expect(preset.verify?.(asRequest(delivery))).toBe(true);
    expect(preset.items?.(asRequest(delivery.retry()))?.map((item) => item.key)).toEqual(['kit-1']);
    expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
    const validation = signer.validation('code-1');
    expect(preset.verify?.(asRequest(validation))).toBe(true);
    expect(preset.handshake?.(asRequest(validation))?.body.toString()).toBe(validation.answer);
    expect(preset.verify?.(asRequest(validation.forged()))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
    [{ secret: 's', queryParameter: 'a b' }, 'queryParameter'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => azureEventGrid(options as never)).toThrow(ConfigError);
    expect(() => azureEventGrid(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
