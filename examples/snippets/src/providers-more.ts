/**
 * @module docs/providers.md, the Wise, PayPal, Coinbase Commerce, Lemon Squeezy, Airwallex,
 * Paystack, Calendly, Sentry, Bitbucket and Postmark sections: each factory with the key it reads.
 * test/providers-more.test.ts checks every `preset.key(…) // '…'` comment against the real key.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';

type Key = ReturnType<ProviderPreset['key']>;

export function wiseKeys(request: HttpRequest): Record<string, Key> {
  // #region wise
  const preset = providers.wise(); // { environment: 'sandbox' } for the sandbox's key
  preset.key(request); // '2c1d4e0f-6b7a-4d21-9a1e-3f0c5b8d7e62' (X-Delivery-Id)
  // #endregion wise
  return { request: preset.key(request) };
}

export function paypalKeys(request: HttpRequest): Record<string, Key> {
  // #region paypal
  const preset = providers.paypal({
    webhookId: process.env.PAYPAL_WEBHOOK_ID!, // your webhook's id, from the app's settings
    certificateTimeoutMs: 5000, // the default: how long a certificate fetch may take
  });
  preset.key(request); // 'WH-2WR32451HC0233532-67976317FL4543714' (the event id)
  // #endregion paypal
  return { request: preset.key(request) };
}

export function coinbaseKeys(request: HttpRequest): Record<string, Key> {
  // #region coinbase
  const preset = providers.coinbase({ secret: process.env.COINBASE_COMMERCE_WEBHOOK_SECRET! });
  preset.key(request); // '24934862-d980-46cb-9402-43c81b0cdba6' (event.id)
  // #endregion coinbase
  return { request: preset.key(request) };
}

export function lemonSqueezyKeys(request: HttpRequest): Record<string, Key> {
  // #region lemonsqueezy
  const preset = providers.lemonsqueezy({ secret: process.env.LEMONSQUEEZY_WEBHOOK_SECRET! });
  preset.key(request); // 'subscription_updated:subscriptions:1@2026-12-01T10:00:00.000000Z'
  // #endregion lemonsqueezy
  return { request: preset.key(request) };
}

export function airwallexKeys(request: HttpRequest): Record<string, Key> {
  // #region airwallex
  const preset = providers.airwallex({
    secret: process.env.AIRWALLEX_WEBHOOK_SECRET!,
    // toleranceSeconds: 300, // to refuse an old x-timestamp (off by default: see below)
  });
  preset.key(request); // 'e5b8a1c2-7d3f-4a9e-b6c1-0f2d3e4a5b6c' (the event id)
  // #endregion airwallex
  return { request: preset.key(request) };
}

export function paystackKeys(request: HttpRequest): Record<string, Key> {
  // #region paystack
  const preset = providers.paystack({ secretKey: process.env.PAYSTACK_SECRET_KEY! });
  preset.key(request); // 'charge.success:302961' (event and data.id)
  // #endregion paystack
  return { request: preset.key(request) };
}

export function calendlyKeys(request: HttpRequest): Record<string, Key> {
  // #region calendly
  const preset = providers.calendly({ signingKey: process.env.CALENDLY_WEBHOOK_SIGNING_KEY! });
  preset.key(request); // 'invitee.created:https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2/invitees/AAAAAAAAAAAAAAAA'
  // #endregion calendly
  return { request: preset.key(request) };
}

export function sentryBitbucketKeys(
  sentryRequest: HttpRequest,
  bitbucketRequest: HttpRequest,
): Record<string, Key> {
  // #region sentry-bitbucket
  const sentry = providers.sentry({ clientSecret: process.env.SENTRY_CLIENT_SECRET! });
  const bitbucket = providers.bitbucket({ secret: process.env.BITBUCKET_WEBHOOK_SECRET! });
  // #endregion sentry-bitbucket
  let preset: ProviderPreset = sentry;
  // #region sentry-bitbucket
  preset.key(sentryRequest); // 'f6bc3a11-0b6f-4e2e-9d9f-5d6a0c3f9e21' (Request-ID)
  // #endregion sentry-bitbucket
  const sentryKey = preset.key(sentryRequest);
  preset = bitbucket;
  // #region sentry-bitbucket
  preset.key(bitbucketRequest); // '8a8c5b1e-3c2f-4f1a-9d2b-6e7f8a9b0c1d' (X-Request-UUID)
  // #endregion sentry-bitbucket
  return { sentryRequest: sentryKey, bitbucketRequest: preset.key(bitbucketRequest) };
}

export function postmarkKeys(request: HttpRequest): Record<string, Key> {
  // #region postmark
  const preset = providers.postmark({
    username: 'postmark', // the credentials you put in the webhook URL: https://postmark:…@…
    password: process.env.POSTMARK_WEBHOOK_PASSWORD!,
  });
  preset.key(request); // 'Delivery:883953f4-6105-42a2-a16a-77a8eac79483:john@example.com'
  // #endregion postmark
  return { request: preset.key(request) };
}
