/**
 * Provider presets, one factory per provider: `providers.stripe({ secret })`,
 * `providers.payme(...)` and so on, after `import * as providers from '@webhook-idempotency/providers'`.
 * Each returns a `ProviderPreset` (from `@webhook-idempotency/core`) that every adapter accepts as
 * `preset`. A package of its own: the catalogue grows with the providers, never the guard.
 * @module @webhook-idempotency/providers
 */
export { payme, type PaymeOptions, type PaymeMinimalCall, type PaymeMinimalEvents } from './payme';
export {
  click,
  type ClickOptions,
  type ClickMinimalRequest,
  type ClickMinimalEvents,
} from './click';
export { uzum, type UzumOptions, type UzumMinimalRequest, type UzumMinimalEvents } from './uzum';
export {
  stripe,
  type StripeOptions,
  type StripeMinimalEvent,
  type StripeMinimalEvents,
} from './timestamped-members';
export {
  github,
  type GitHubOptions,
  type GitHubMinimalPayload,
  type GitHubMinimalEvents,
} from './github';
export {
  telegram,
  type TelegramBot,
  type TelegramOptions,
  type TelegramMinimalUpdate,
  type TelegramMinimalEvents,
} from './telegram';
export {
  shopify,
  type ShopifyOptions,
  type ShopifyMinimalPayload,
  type ShopifyMinimalEvents,
} from './shopify';
export {
  standardWebhooks,
  type StandardWebhooksOptions,
  type StandardWebhooksSettings,
  type StandardWebhooksMinimalEvent,
  type StandardWebhooksMinimalEvents,
  type SecretEncoding,
} from './standard-webhooks';
export {
  slack,
  type SlackOptions,
  type SlackMinimalEnvelope,
  type SlackMinimalEvents,
} from './timestamped-members';
export {
  paddle,
  type PaddleOptions,
  type PaddleMinimalEvent,
  type PaddleMinimalEvents,
} from './timestamped-members';
export { clerk, resend, type SvixSenderOptions } from './svix-senders';
export {
  razorpay,
  type RazorpayOptions,
  type RazorpayMinimalEvent,
  type RazorpayMinimalEvents,
} from './hmac-members';
export {
  discord,
  DISCORD_INTERACTION_TYPES,
  type DiscordOptions,
  type DiscordMinimalInteraction,
  type DiscordMinimalEvents,
} from './discord';
export { hmac, type HmacOptions, type SignedRequest } from './hmac';
export type { HmacItems, ItemReader } from './hmac-items';
export {
  twitch,
  type TwitchOptions,
  type TwitchMinimalMessage,
  type TwitchMinimalEvents,
} from './twitch';
export {
  gitlab,
  type GitLabOptions,
  type GitLabMinimalEvent,
  type GitLabMinimalEvents,
} from './gitlab';
export {
  square,
  type SquareOptions,
  type SquareMinimalEvent,
  type SquareMinimalEvents,
} from './hmac-members-parts';
export {
  typeform,
  type TypeformOptions,
  type TypeformMinimalEvent,
  type TypeformMinimalEvents,
} from './hmac-members';
export {
  checkout,
  intercom,
  vercel,
  type BodySignedOptions,
  type BodySignedMinimalEvent,
  type BodySignedMinimalEvents,
  type IntercomMinimalEvent,
  type IntercomMinimalEvents,
} from './body-signed';
export {
  wise,
  WISE_PRODUCTION_PUBLIC_KEY,
  WISE_SANDBOX_PUBLIC_KEY,
  type WiseOptions,
  type WiseMinimalEvent,
  type WiseMinimalEvents,
} from './wise';
export {
  paypal,
  type PayPalOptions,
  type PayPalSettings,
  type PayPalMinimalEvent,
  type PayPalMinimalEvents,
} from './paypal';
export type { FetchCertificate } from './paypal-certificates';
export {
  coinbase,
  type CoinbaseOptions,
  type CoinbaseMinimalEvent,
  type CoinbaseMinimalEvents,
} from './hmac-members-events';
export {
  lemonsqueezy,
  type LemonSqueezyOptions,
  type LemonSqueezyMinimalEvent,
  type LemonSqueezyMinimalEvents,
} from './hmac-members-events';
export {
  airwallex,
  type AirwallexOptions,
  type AirwallexMinimalEvent,
  type AirwallexMinimalEvents,
} from './hmac-members-parts';
export {
  paystack,
  type PaystackOptions,
  type PaystackMinimalEvent,
  type PaystackMinimalEvents,
} from './hmac-members';
export {
  calendly,
  type CalendlyOptions,
  type CalendlyMinimalEvent,
  type CalendlyMinimalEvents,
} from './timestamped-members';
export {
  sentry,
  type SentryOptions,
  type SentryMinimalEvent,
  type SentryMinimalEvents,
} from './hmac-members';
export {
  bitbucket,
  type BitbucketOptions,
  type BitbucketMinimalEvent,
  type BitbucketMinimalEvents,
} from './hmac-members';
export {
  postmark,
  type PostmarkOptions,
  type PostmarkMinimalRecord,
  type PostmarkMinimalEvents,
} from './postmark';
export {
  twilio,
  type TwilioOptions,
  type TwilioMinimalParameters,
  type TwilioMinimalEvents,
} from './twilio';
export {
  linear,
  type LinearOptions,
  type LinearMinimalEvent,
  type LinearMinimalEvents,
} from './hmac-members-events';
export {
  mercadopago,
  type MercadoPagoOptions,
  type MercadoPagoMinimalEvent,
  type MercadoPagoMinimalEvents,
} from './mercadopago';
export {
  zoom,
  type ZoomOptions,
  type ZoomMinimalEvent,
  type ZoomMinimalEvents,
} from './hmac-members-parts';
export {
  braintree,
  type BraintreeKeyPair,
  type BraintreeOptions,
  type BraintreeMinimalNotification,
  type BraintreeMinimalEvents,
} from './braintree';
export {
  mailgun,
  type MailgunOptions,
  type MailgunMinimalEvent,
  type MailgunMinimalEvents,
} from './mailgun';
export {
  sendgrid,
  type SendGridOptions,
  type SendGridMinimalEvent,
  type SendGridMinimalEvents,
} from './sendgrid';
export {
  hubspot,
  type HubSpotOptions,
  type HubSpotMinimalEvent,
  type HubSpotMinimalEvents,
} from './hubspot';
export { adyen, type AdyenOptions, type AdyenMinimalItem, type AdyenMinimalEvents } from './adyen';
export { meta, type MetaItem, type MetaOptions, type MetaMinimalEvents } from './meta';
// Signed tokens and public keys.
export {
  telnyx,
  type TelnyxOptions,
  type TelnyxMinimalEvent,
  type TelnyxMinimalEvents,
} from './telnyx';
export { qstash, type QStashOptions, type QStashMinimalEvents } from './qstash';
export {
  vonage,
  type VonageOptions,
  type VonageMinimalMessage,
  type VonageMinimalEvents,
} from './vonage';
export {
  plaid,
  type PlaidKeyFetcher,
  type PlaidMinimalEvents,
  type PlaidMinimalWebhook,
  type PlaidOptions,
  type PlaidVerificationKey,
} from './plaid';
export {
  cloudinary,
  type CloudinaryOptions,
  type CloudinaryMinimalNotification,
  type CloudinaryMinimalEvents,
} from './cloudinary';
export {
  dropboxSign,
  type DropboxSignOptions,
  type DropboxSignMinimalCallback,
  type DropboxSignMinimalEvents,
} from './dropbox-sign';
export {
  tbank,
  type TBankOptions,
  type TBankMinimalNotification,
  type TBankMinimalEvents,
} from './tbank';
export {
  robokassa,
  type RobokassaAlgorithm,
  type RobokassaOptions,
  type RobokassaMinimalResult,
  type RobokassaMinimalEvents,
} from './robokassa';
export {
  mandrill,
  type MandrillOptions,
  type MandrillMinimalEvent,
  type MandrillMinimalEvents,
} from './mandrill';
export {
  pagerduty,
  type PagerDutyOptions,
  type PagerDutyMinimalWebhook,
  type PagerDutyMinimalEvents,
} from './pagerduty';
export {
  openai,
  replicate,
  type ReplicateMinimalEvent,
  type ReplicateMinimalEvents,
  stytch,
  type StytchMinimalEvent,
  type StytchMinimalEvents,
  polar,
  dodopayments,
  supabaseAuthHooks,
  type SupabaseAuthHooksMinimalEvent,
  type SupabaseAuthHooksMinimalEvents,
} from './svix-senders';
export {
  workos,
  type WorkOSOptions,
  type WorkOSMinimalEvent,
  type WorkOSMinimalEvents,
} from './workos';
export {
  elevenlabs,
  type ElevenLabsOptions,
  type ElevenLabsMinimalEvent,
  type ElevenLabsMinimalEvents,
} from './elevenlabs';
export { sanity, type SanityOptions, type SanityMinimalEvents } from './sanity';
export { mux, type MuxOptions, type MuxMinimalEvent, type MuxMinimalEvents } from './mux';
export {
  webflow,
  type WebflowOptions,
  type WebflowMinimalEvent,
  type WebflowMinimalEvents,
} from './webflow';
export {
  chargebee,
  type ChargebeeOptions,
  type ChargebeeMinimalEvent,
  type ChargebeeMinimalEvents,
} from './chargebee';
export {
  auth0,
  type Auth0Options,
  type Auth0MinimalLog,
  type Auth0MinimalEvents,
} from './auth0';
export {
  okta,
  type OktaOptions,
  type OktaMinimalEvent,
  type OktaMinimalEvents,
} from './okta';
export {
  microsoftGraph,
  type MicrosoftGraphOptions,
  type MicrosoftGraphMinimalNotification,
  type MicrosoftGraphMinimalEvents,
} from './microsoft-graph';
export {
  azureEventGrid,
  type AzureEventGridOptions,
  type AzureEventGridMinimalEvent,
  type AzureEventGridMinimalEvents,
} from './azure-event-grid';
export {
  googleCalendar,
  type GoogleCalendarOptions,
  type GoogleCalendarMinimalEvents,
} from './google-calendar';
// Raw-body HMAC providers (the hmac() family), catalogue B.
export {
  line,
  type LineOptions,
  type LineMinimalEvent,
  type LineMinimalEvents,
  gocardless,
  type GoCardlessOptions,
  type GoCardlessMinimalEvent,
  type GoCardlessMinimalEvents,
} from './hmac-members-batches';
export {
  notion,
  type NotionOptions,
  type NotionMinimalEvent,
  type NotionMinimalEvents,
  viber,
  type ViberOptions,
  type ViberMinimalEvent,
  type ViberMinimalEvents,
} from './hmac-members-handshakes';
export type {
  EventMap,
  EventOf,
  EventsByType,
  Named,
  PresetFactory,
  TypedPreset,
} from './events';
export type { ClockOption } from './options';
export type {
  OneOrMany,
  SecretCacheOptions,
  SecretLookup,
  SecretLookupContext,
  SecretOptions,
  SecretResolver,
} from './secrets';
export type { BasicAuthOptions, BasicCredentials } from './basic-auth';
