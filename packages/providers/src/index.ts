/**
 * Provider presets, one factory per provider: `providers.stripe({ secret })`,
 * `providers.payme(...)` and so on, after `import * as providers from '@webhook-idempotency/providers'`.
 * Each returns a `ProviderPreset` (from `@webhook-idempotency/core`) that every adapter accepts as
 * `preset`. A package of its own: the catalogue grows with the providers, never the guard.
 * @module @webhook-idempotency/providers
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
export { clerk, resend, type SvixSenderOptions } from './svix-senders';
export { razorpay, type RazorpayOptions } from './razorpay';
export { discord, type DiscordOptions } from './discord';
export { hmac, type HmacOptions, type SignedRequest } from './hmac';
export { twitch, type TwitchOptions } from './twitch';
export { gitlab, type GitLabOptions } from './gitlab';
export { square, type SquareOptions } from './square';
export { typeform, type TypeformOptions } from './typeform';
export { checkout, intercom, vercel, type BodySignedOptions } from './body-signed';
export {
  wise,
  WISE_PRODUCTION_PUBLIC_KEY,
  WISE_SANDBOX_PUBLIC_KEY,
  type WiseOptions,
} from './wise';
export { paypal, type PayPalOptions } from './paypal';
export type { FetchCertificate } from './paypal-certificates';
export { coinbase, type CoinbaseOptions } from './coinbase';
export { lemonsqueezy, type LemonSqueezyOptions } from './lemonsqueezy';
export { airwallex, type AirwallexOptions } from './airwallex';
export { paystack, type PaystackOptions } from './paystack';
export { calendly, type CalendlyOptions } from './calendly';
export { sentry, type SentryOptions } from './sentry';
export { bitbucket, type BitbucketOptions } from './bitbucket';
export { postmark, type PostmarkOptions } from './postmark';
export { twilio, type TwilioOptions } from './twilio';
export { linear, type LinearOptions } from './linear';
export { mercadopago, type MercadoPagoOptions } from './mercadopago';
export { zoom, type ZoomOptions } from './zoom';
export { braintree, type BraintreeOptions } from './braintree';
export { mailgun, type MailgunOptions } from './mailgun';
export { sendgrid, type SendGridOptions } from './sendgrid';
export { hubspot, type HubSpotOptions } from './hubspot';
export { adyen, type AdyenOptions } from './adyen';
export { meta, type MetaItem, type MetaOptions } from './meta';
