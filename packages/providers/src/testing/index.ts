/**
 * The test kit: for each preset factory of `@webhook-idempotency/providers`, a signer of the
 * same name that makes deliveries the preset accepts, signed from the provider's documented
 * scheme with `node:crypto` (never the presets' own code): `signers.stripe({ secret }).event({ … })`
 * after `import * as signers from '@webhook-idempotency/providers/testing'`. Each delivery has
 * its `retry()` and its `forged()` copy; handshakes and challenges carry the answer the provider
 * expects; `send` sends one with supertest, Fastify's inject or as a fetch `Request`.
 * @module @webhook-idempotency/providers/testing
 */
export type {
  Challenge,
  Delivery,
  DeliveryOptions,
  Handshake,
  Moment,
  RetryOptions,
  SignerOptions,
} from './delivery';
export type { Payload, Secrets } from './common';
export {
  type Injectable,
  type InjectRequest,
  type InjectResponse,
  inject,
  injectOptions,
  type Sendable,
  send,
  supertest,
  type SupertestClient,
  toRequest,
} from './send';
export {
  airwallex,
  type AirwallexSignerOptions,
  calendly,
  type CalendlySignerOptions,
  clerk,
  openai,
  replicate,
  stytch,
  polar,
  dodopayments,
  supabaseAuthHooks,
  paddle,
  type PaddleSignerOptions,
  resend,
  slack,
  type SlackSignerOptions,
  standardWebhooks,
  type StandardWebhooksDeliveryOptions,
  type StandardWebhooksSignerOptions,
  stripe,
  type StripeSignerOptions,
} from './timestamped';
export {
  bitbucket,
  checkout,
  coinbase,
  github,
  type GitHubDeliveryOptions,
  type IdDeliveryOptions,
  intercom,
  lemonsqueezy,
  paystack,
  razorpay,
  type SecretSignerOptions,
  sentry,
  shopify,
  type ShopifyDeliveryOptions,
  type ShopifySignerOptions,
  typeform,
  vercel,
} from './body-signed';
export {
  type BasicSignerOptions,
  gitlab,
  type GitLabDeliveryOptions,
  payme,
  type PaymeSignerOptions,
  postmark,
  telegram,
  type TelegramSignerOptions,
  uzum,
  type UzumOperation,
} from './credentials';
export {
  discord,
  type KeySignerOptions,
  paypal,
  type PayPalDeliveryOptions,
  type PayPalSignerOptions,
  sendgrid,
  wise,
  type WiseDeliveryOptions,
} from './asymmetric';
export {
  type FormFields,
  type MercadoPagoDeliveryOptions,
  mercadopago,
  square,
  type SquareSignerOptions,
  twilio,
  type TwilioDeliveryOptions,
  type TwilioSignerOptions,
} from './url-signed';
export { type TwitchDeliveryOptions, twitch, zoom } from './handshakes';
export { type LinearDeliveryOptions, linear, mailgun } from './in-body';
export {
  type BraintreeNotification,
  braintree,
  type ClickComplete,
  type ClickPrepare,
  click,
} from './forms';
export {
  type AdyenItem,
  type AdyenSignerOptions,
  adyen,
  type HubSpotSignerOptions,
  hubspot,
  type MetaChallenge,
  type MetaSignerOptions,
  meta,
} from './batches';
export { type HmacDeliveryOptions, type HmacSignerOptions, hmac, type SignedRequest } from './hmac';
// Signed tokens and public keys.
export {
  plaid,
  type PlaidSignerOptions,
  qstash,
  type QStashDeliveryOptions,
  type QStashSignerOptions,
  telnyx,
  vonage,
  type VonageSignerOptions,
} from './tokens';
export {
  type CloudinarySignerOptions,
  cloudinary,
  type DropboxSignDeliveryOptions,
  type DropboxSignSignerOptions,
  dropboxSign,
  mandrill,
  pagerduty,
  type RobokassaResult,
  type RobokassaSignerOptions,
  robokassa,
  type TBankNotification,
  tbank,
} from './field-signed';
export {
  elevenlabs,
  type ElevenLabsSignerOptions,
  mux,
  type MuxSignerOptions,
  revolut,
  type RevolutSignerOptions,
  persona,
  type PersonaSignerOptions,
  recurly,
  type RecurlySignerOptions,
  sanity,
  type SanityDeliveryOptions,
  type SanitySignerOptions,
  webflow,
  type WebflowSignerOptions,
  workos,
  type WorkOSSignerOptions,
} from './stamped';
export {
  type Auth0ContentFormat,
  type Auth0DeliveryOptions,
  auth0,
  type AzureEventGridSignerOptions,
  azureEventGrid,
  chargebee,
  type GoogleCalendarNotification,
  googleCalendar,
  microsoftGraph,
  type OktaChallenge,
  type OktaSignerOptions,
  okta,
} from './static-secrets';
// Raw-body HMAC providers, catalogue B.
export {
  type GoCardlessSignerOptions,
  gocardless,
  type LineSignerOptions,
  line,
  type NotionSignerOptions,
  notion,
  type ViberSignerOptions,
  viber,
  type WooCommerceSignerOptions,
  woocommerce,
} from './body-hmac';
