/** Cross-cutting checks that every preset must pass, whatever its provider. */
import { generateKeyPairSync } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { makeRequest } from './helpers';

/** A public key as Telnyx's Mission Control shows it: base64 of the 32 raw Ed25519 bytes. */
const TELNYX_KEY = generateKeyPairSync('ed25519')
  .publicKey.export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('base64');

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
  // Signed tokens and public keys.
  telnyx: providers.telnyx({ publicKey: TELNYX_KEY }),
  qstash: providers.qstash({ signingKey: 'sig_x', url: 'https://example.com/q' }),
  vonage: providers.vonage({ signatureSecret: 'x' }),
  plaid: providers.plaid({ fetchKey: async () => undefined }),
  cloudinary: providers.cloudinary({ apiSecret: 'x' }),
  'dropbox-sign': providers.dropboxSign({ apiKey: 'x' }),
  tbank: providers.tbank({ password: 'x' }),
  robokassa: providers.robokassa({ password2: 'x' }),
  mandrill: providers.mandrill({
    webhookKey: 'x',
    webhookUrl: 'https://example.com/webhooks/mandrill',
  }),
  pagerduty: providers.pagerduty({ secret: 'x' }),
  openai: providers.openai({ secret: 'whsec_c2VjcmV0' }),
  replicate: providers.replicate({ secret: 'whsec_c2VjcmV0' }),
  stytch: providers.stytch({ secret: 'whsec_c2VjcmV0' }),
  polar: providers.polar({ secret: 'whsec_c2VjcmV0' }),
  dodopayments: providers.dodopayments({ secret: 'whsec_c2VjcmV0' }),
  'supabase-auth-hooks': providers.supabaseAuthHooks({ secret: 'whsec_c2VjcmV0' }),
  workos: providers.workos({ secret: 'x' }),
  elevenlabs: providers.elevenlabs({ secret: 'x' }),
  sanity: providers.sanity({ secret: 'x' }),
  mux: providers.mux({ secret: 'x' }),
  webflow: providers.webflow({ secret: 'x' }),
  recurly: providers.recurly({ secret: 'x' }),
  revolut: providers.revolut({ signingSecret: 'x' }),
  persona: providers.persona({ secret: 'x' }),
  chargebee: providers.chargebee({ username: 'user', password: 'pass' }),
  auth0: providers.auth0({ authorization: 'Bearer token' }),
  okta: providers.okta({ secret: 'secret' }),
  'microsoft-graph': providers.microsoftGraph({ clientState: 'state' }),
  'azure-event-grid': providers.azureEventGrid({ secret: 'secret' }),
  'google-calendar': providers.googleCalendar({ token: 'token' }),
  line: providers.line({ channelSecret: 'x' }),
  notion: providers.notion({ verificationToken: 'x', onVerificationToken: () => undefined }),
  woocommerce: providers.woocommerce({ secret: 'x' }),
  gocardless: providers.gocardless({ secret: 'x' }),
  viber: providers.viber({ authToken: 'x' }),
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
      'telnyx-signature-ed25519': '=',
      'telnyx-timestamp': '1e9',
      'upstash-signature': 'a.b.c',
      'plaid-verification': 'e30.e30.',
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
      telnyx: 7,
      qstash: 30,
      vonage: 7,
      plaid: 7,
      cloudinary: 7,
      'dropbox-sign': 14,
      tbank: 30,
      robokassa: 30,
      mandrill: 7,
      pagerduty: 7,
      openai: 30,
      replicate: 30,
      stytch: 30,
      polar: 30,
      dodopayments: 30,
      'supabase-auth-hooks': 7,
      workos: 7,
      elevenlabs: 7,
      sanity: 7,
      mux: 7,
      webflow: 7,
      recurly: 7,
      revolut: 30,
      persona: 7,
      chargebee: 30,
      auth0: 14,
      okta: 3,
      'microsoft-graph': 3,
      'azure-event-grid': 3,
      'google-calendar': 7,
      line: 7,
      notion: 7,
      woocommerce: 7,
      gocardless: 14,
      viber: 7,
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
      'telnyx',
      'qstash',
      'vonage',
      'plaid',
      'cloudinary',
      'dropbox-sign',
      'pagerduty',
      'openai',
      'replicate',
      'stytch',
      'polar',
      'dodopayments',
      'supabase-auth-hooks',
      'workos',
      'elevenlabs',
      'sanity',
      'mux',
      'webflow',
      'recurly',
      'revolut',
      'persona',
      'line',
      'notion',
      'woocommerce',
      'gocardless',
      'viber',
    ]);
  });
});
