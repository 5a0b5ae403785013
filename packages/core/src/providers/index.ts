/**
 * Provider presets, one factory per provider: `providers.stripe({ secret })`,
 * `providers.payme(...)` and so on. Each returns a `ProviderPreset` that every adapter accepts
 * as `preset`.
 * @module providers
 */
export { payme, type PaymeOptions } from './payme';
export { click, type ClickOptions } from './click';
export { uzum, type UzumOptions } from './uzum';
export { stripe, type StripeOptions } from './stripe';
export { github, type GitHubOptions } from './github';
export { telegram, type TelegramOptions } from './telegram';
export { shopify, type ShopifyOptions } from './shopify';
export { standardWebhooks, type StandardWebhooksOptions } from './standard-webhooks';
export { slack, type SlackOptions } from './slack';
export { paddle, type PaddleOptions } from './paddle';
