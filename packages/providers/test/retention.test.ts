/**
 * The purge check (guard.purge refuses a retention shorter than the window of a preset an adapter
 * serves on the store) covers these presets: each states its window, and a preset wrapped around
 * hmac() keeps it.
 */
import { IdempotencyGuard, InMemoryStore, type ProviderPreset } from '@webhook-idempotency/core';
import { createEngine } from '@webhook-idempotency/core/adapter';
import * as providers from '../src';

const presets: Array<[ProviderPreset, number]> = [
  [providers.wise(), 21],
  [providers.paypal({ webhookId: 'W', fetchCertificate: async () => '' }), 30],
  [providers.coinbase({ secret: 'x' }), 7],
  [providers.lemonsqueezy({ secret: 'x' }), 7],
  [providers.airwallex({ secret: 'x' }), 7],
  [providers.paystack({ secretKey: 'x' }), 7],
  [providers.calendly({ signingKey: 'x' }), 7],
  [providers.sentry({ clientSecret: 'x' }), 7],
  [providers.bitbucket({ secret: 'x' }), 7],
  [providers.postmark({ username: 'u', password: 'p' }), 7],
  // Signed tokens and public keys.
  [providers.telnyx({ publicKey: Buffer.alloc(32, 7).toString('base64') }), 7],
  [providers.qstash({ signingKey: 'sig_x', url: 'https://example.com/q' }), 30],
  [providers.vonage({ signatureSecret: 'x' }), 7],
  [providers.plaid({ fetchKey: async () => undefined }), 7],
  [providers.cloudinary({ apiSecret: 'x' }), 7],
  [providers.dropboxSign({ apiKey: 'x' }), 14],
  [providers.tbank({ password: 'x' }), 30],
  [providers.robokassa({ password2: 'x' }), 30],
  [providers.mandrill({ webhookKey: 'x', webhookUrl: 'https://example.com/webhooks/mandrill' }), 7],
  [providers.pagerduty({ secret: 'x' }), 7],
  [providers.openai({ secret: 'whsec_c2VjcmV0' }), 30],
  [providers.replicate({ secret: 'whsec_c2VjcmV0' }), 30],
  [providers.stytch({ secret: 'whsec_c2VjcmV0' }), 30],
  [providers.polar({ secret: 'whsec_c2VjcmV0' }), 30],
  [providers.dodopayments({ secret: 'whsec_c2VjcmV0' }), 30],
  [providers.supabaseAuthHooks({ secret: 'whsec_c2VjcmV0' }), 7],
  [providers.workos({ secret: 'x' }), 7],
  [providers.elevenlabs({ secret: 'x' }), 7],
  [providers.sanity({ secret: 'x' }), 7],
  [providers.mux({ secret: 'x' }), 7],
  [providers.webflow({ secret: 'x' }), 7],
  [providers.recurly({ secret: 'x' }), 7],
  [providers.revolut({ signingSecret: 'x' }), 30],
  [providers.persona({ secret: 'x' }), 7],
  [providers.chargebee({ username: 'u', password: 'p' }), 30],
  [providers.auth0({ authorization: 't' }), 14],
  [providers.okta({ secret: 's' }), 3],
  [providers.microsoftGraph({ clientState: 's' }), 3],
  [providers.azureEventGrid({ secret: 's' }), 3],
  [providers.googleCalendar({ token: 't' }), 7],
  [providers.line({ channelSecret: 'x' }), 7],
  [providers.notion({ verificationToken: 'x' }), 7],
  [providers.woocommerce({ secret: 'x' }), 7],
  [providers.gocardless({ secret: 'x' }), 14],
  [providers.viber({ authToken: 'x' }), 7],
];

it.each(presets.map(([preset, days]) => [preset.provider, preset, days] as const))(
  '%s: a purge shorter than its window is refused once an adapter serves it',
  async (provider, preset, days) => {
    expect(preset.retentionDays).toBe(days);
    const store = new InMemoryStore();
    const guard = new IdempotencyGuard(store);
    createEngine({ guard, preset });
    await expect(guard.purge({ provider, retentionDays: days - 1 })).rejects.toMatchObject({
      name: 'ConfigError',
      option: 'retentionDays',
    });
    await expect(guard.purge({ provider, retentionDays: days })).resolves.toBeDefined();
  },
);
