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
  [providers.line({ channelSecret: 'x' }), 7],
  [providers.notion({ verificationToken: 'x' }), 7],
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
