/**
 * @module docs/providers.md: a preset on an Express route, and each factory with the key it reads.
 * test/providers.test.ts checks every `preset.key(…) // '…'` comment against the real key.
 */
// #region stripe-express
import * as providers from '@webhook-idempotency/providers';
import { idempotent } from '@webhook-idempotency/express';
// #endregion stripe-express
import type { HttpRequest, ProviderPreset, Store } from '@webhook-idempotency/core';
import express, { type Express, type RequestHandler } from 'express';

/** The preset on an Express route: the signature is checked on the raw bytes before any claim. */
export function stripeRoute(app: Express, store: Store, handler: RequestHandler): void {
  // #region stripe-express
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }), // signatures need the exact bytes
    idempotent({ store, preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }) }),
    handler,
  );
  // #endregion stripe-express
}

type Key = ReturnType<ProviderPreset['key']>;

export function paymeKeys(createTransactionRequest: HttpRequest): Record<string, Key> {
  // #region payme
  const preset = providers.payme({ password: process.env.PAYME_CASH_DESK_KEY! }); // login defaults to 'Paycom'
  preset.key(createTransactionRequest); // 'CreateTransaction:5305e3bab097f420a62ced0b'
  // #endregion payme
  return { createTransactionRequest: preset.key(createTransactionRequest) };
}

export function clickKeys(
  prepareRequest: HttpRequest,
  completeRequest: HttpRequest,
): Record<string, Key> {
  // #region click
  const preset = providers.click({ secretKey: process.env.CLICK_SECRET_KEY! });
  preset.key(prepareRequest); // '2263123456:0'
  preset.key(completeRequest); // '2263123456:1:ok' ('2263123456:1:cancel' when error < 0)
  // #endregion click
  return {
    prepareRequest: preset.key(prepareRequest),
    completeRequest: preset.key(completeRequest),
  };
}

export function uzumKeys(createRequest: HttpRequest): Record<string, Key> {
  // #region uzum
  const preset = providers.uzum({
    username: process.env.UZUM_LOGIN!,
    password: process.env.UZUM_PASSWORD!,
  });
  preset.key(createRequest); // '498:3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11:create' for POST …/create
  // #endregion uzum
  return { createRequest: preset.key(createRequest) };
}

export function stripeKeys(request: HttpRequest): Record<string, Key> {
  // #region stripe
  const preset = providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }); // toleranceSeconds: 300
  preset.key(request); // 'evt_1PqRsT2eZvKYlo2C0a1b2c3d'
  // #endregion stripe
  return { request: preset.key(request) };
}

export function githubKeys(request: HttpRequest): Record<string, Key> {
  // #region github
  const preset = providers.github({ secret: process.env.GITHUB_WEBHOOK_SECRET! });
  preset.key(request); // '72d3162e-cc78-11e3-81ab-4c9367dc0958'
  // #endregion github
  return { request: preset.key(request) };
}

export function telegramKeys(request: HttpRequest): Record<string, Key> {
  // #region telegram
  const preset = providers.telegram({
    botId: 123456789,
    secretToken: process.env.TELEGRAM_SECRET_TOKEN!,
  });
  preset.key(request); // '123456789:874512345'
  // #endregion telegram
  return { request: preset.key(request) };
}

export function shopifyKeys(request: HttpRequest): Record<string, Key> {
  // #region shopify
  const preset = providers.shopify({ secret: process.env.SHOPIFY_CLIENT_SECRET! });
  preset.key(request); // 'example.myshopify.com:b54557e4-bdd9-4b37-8a5f-bf7d70bcd043'
  // #endregion shopify
  return { request: preset.key(request) };
}

export function standardWebhooksKeys(request: HttpRequest): Record<string, Key> {
  // #region standard-webhooks
  const preset = providers.standardWebhooks({
    secret: process.env.WEBHOOK_SECRET!,
    provider: 'resend',
  });
  preset.key(request); // 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'
  // #endregion standard-webhooks
  return { request: preset.key(request) };
}

export function slackKeys(request: HttpRequest): Record<string, Key> {
  // #region slack
  const preset = providers.slack({ signingSecret: process.env.SLACK_SIGNING_SECRET! });
  preset.key(request); // 'A0123456789:Ev0ABCDEF12'
  // #endregion slack
  return { request: preset.key(request) };
}

export function paddleKeys(request: HttpRequest): Record<string, Key> {
  // #region paddle
  const preset = providers.paddle({ secret: process.env.PADDLE_WEBHOOK_SECRET! }); // toleranceSeconds: 5
  preset.key(request); // 'evt_01hv8x2acma2gz9ntcb8nbj6yw'
  // #endregion paddle
  return { request: preset.key(request) };
}
