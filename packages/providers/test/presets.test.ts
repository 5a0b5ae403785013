/** Cross-cutting checks that every preset must pass, whatever its provider. */
import * as providers from '@webhook-idempotency/providers';
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { makeRequest } from './helpers';

const all: Record<string, ProviderPreset> = {
  payme: providers.payme({ password: 'cash-desk-key' }),
  click: providers.click({ secretKey: 'secret' }),
  uzum: providers.uzum({ username: 'user', password: 'pass' }),
  stripe: providers.stripe({ secret: 'whsec_x' }),
  github: providers.github({ secret: 'x' }),
  telegram: providers.telegram({ botId: 1, secretToken: 'token' }),
  shopify: providers.shopify({ secret: 'x' }),
  'standard-webhooks': providers.standardWebhooks({ secret: 'whsec_c2VjcmV0' }),
  slack: providers.slack({ signingSecret: 'x' }),
  paddle: providers.paddle({ secret: 'x' }),
  line: providers.line({ channelSecret: 'x' }),
  notion: providers.notion({ verificationToken: 'x', onVerificationToken: () => undefined }),
};

/** Requests no provider would send: every preset must answer them without throwing. */
const garbled: Record<string, HttpRequest> = {
  'no body, no headers': makeRequest(),
  'binary body': makeRequest({ rawBody: Buffer.from([0xff, 0xfe, 0x00, 0x80]) }),
  'a JSON array': makeRequest({ rawBody: '[1,2,3]' }),
  'JSON null parsed': makeRequest({ rawBody: 'null', body: null }),
  'a parsed body that is bytes': makeRequest({ body: Buffer.from('{"id":"x"}') }),
  'headers as arrays': makeRequest({
    rawBody: '{}',
    headers: {
      authorization: ['Basic a', 'Basic b'],
      'stripe-signature': ['t=1,v1=a', 't=2,v1=b'],
      'x-hub-signature-256': [],
      'webhook-signature': ['v1,a'],
      'x-slack-signature': ['v0=a', 'v0=b'],
    },
  }),
  'every header garbled': makeRequest({
    rawBody: '{"id":{},"event_id":[],"update_id":"x","method":1}',
    url: '?',
    headers: {
      authorization: 'Basic',
      'stripe-signature': 't=,v1=',
      'x-hub-signature-256': 'sha256=',
      'x-telegram-bot-api-secret-token': '',
      'x-shopify-hmac-sha256': '=',
      'webhook-id': '',
      'webhook-timestamp': '-1',
      'webhook-signature': ' ',
      'x-slack-request-timestamp': '1e9',
      'x-slack-signature': 'v0=',
      'paddle-signature': ';;=;',
    },
  }),
};

describe.each(Object.entries(all))('the %s preset', (name, preset) => {
  it('is named after its provider and states its raw-body need and retention', () => {
    expect(preset.provider).toBe(name);
    expect(typeof preset.needsRawBody).toBe('boolean');
    expect(Number.isInteger(preset.retentionDays) && preset.retentionDays > 0).toBe(true);
    expect(preset.keyDescription).toEqual(expect.stringMatching(/\S/));
  });

  it.each(Object.entries(garbled))('neither throws nor accepts %s', async (_label, request) => {
    expect(() => preset.key(request)).not.toThrow();
    expect(() => preset.passThrough?.(request)).not.toThrow();
    expect(() => preset.fingerprint?.(request)).not.toThrow();
    expect(() => preset.unauthorized?.(request)).not.toThrow();
    expect(() => preset.inProgress?.(request, 5)).not.toThrow();
    expect(await preset.verify?.(request)).toBe(false);
  });
});

describe('retention follows the summary table of docs/providers.md', () => {
  it('keeps payment records for ten years and event receipts for the retry plus replay window', () => {
    expect(
      Object.fromEntries(Object.entries(all).map(([name, preset]) => [name, preset.retentionDays])),
    ).toEqual({
      payme: 3650,
      click: 3650,
      uzum: 3650,
      stripe: 30,
      github: 7,
      telegram: 7,
      shopify: 7,
      'standard-webhooks': 30,
      slack: 2,
      paddle: 30,
      line: 7,
      notion: 7,
    });
  });

  it('asks for the raw bytes exactly where the signature covers them', () => {
    const raw = Object.entries(all)
      .filter(([, preset]) => preset.needsRawBody)
      .map(([name]) => name);
    expect(raw).toEqual([
      'stripe',
      'github',
      'shopify',
      'standard-webhooks',
      'slack',
      'paddle',
      'line',
      'notion',
    ]);
  });
});
