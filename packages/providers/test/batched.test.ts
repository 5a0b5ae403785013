/** What every batched preset must do with requests no provider would send: neither throw nor accept. */
import { generateKeyPairSync } from 'node:crypto';
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { makeRequest } from './helpers';

const batched: Record<string, ProviderPreset> = {
  sendgrid: providers.sendgrid({
    publicKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .publicKey.export({ format: 'der', type: 'spki' })
      .toString('base64'),
  }),
  hubspot: providers.hubspot({ clientSecret: 'x', targetUrl: 'https://example.com/hook' }),
  adyen: providers.adyen({ hmacKey: 'AB12' }),
  meta: providers.meta({ appSecret: 'x', verifyToken: 'token' }),
};

const garbled: Record<string, HttpRequest> = {
  'no body, no headers': makeRequest(),
  'binary body': makeRequest({ rawBody: Buffer.from([0xff, 0xfe, 0x00, 0x80]) }),
  'an array of scalars': makeRequest({ rawBody: '[1,null,"x",[]]' }),
  'objects where arrays belong': makeRequest({
    rawBody: '{"object":"page","entry":{"changes":1},"notificationItems":{"a":1}}',
  }),
  'arrays of garbage': makeRequest({
    rawBody:
      '{"object":"page","entry":[{"changes":[null,1],"messaging":[2,{"message":7}]}],"notificationItems":[{"NotificationRequestItem":{"amount":null,"additionalData":[]}}]}',
  }),
  'JSON null parsed': makeRequest({ rawBody: 'null', body: null }),
  'headers as arrays': makeRequest({
    rawBody: '[]',
    headers: {
      'x-twilio-email-event-webhook-signature': ['a', 'b'],
      'x-hubspot-signature-v3': [],
      'x-hub-signature-256': ['sha256=a', 'sha256=b'],
      authorization: ['Basic a'],
    },
  }),
  'a garbled GET': makeRequest({ method: 'GET', url: '/?hub.mode=subscribe&hub.challenge=' }),
};

describe.each(Object.entries(batched))('the batched %s preset', (name, preset) => {
  it('is named after its provider, states its retention, and declares items', () => {
    expect(preset.provider).toBe(name);
    expect(Number.isInteger(preset.retentionDays) && preset.retentionDays > 0).toBe(true);
    expect(typeof preset.items).toBe('function');
    expect(preset.keyDescription).toEqual(expect.stringMatching(/\S/));
  });

  it.each(Object.entries(garbled))('neither throws nor accepts %s', async (_label, request) => {
    expect(() => preset.items!(request)).not.toThrow();
    expect(() => preset.key(request)).not.toThrow();
    expect(() => preset.handshake?.(request)).not.toThrow();
    expect(() => preset.unauthorized?.(request)).not.toThrow();
    expect(await preset.verify?.(request)).toBe(false);
  });
});
