/**
 * @module The types of the presets' options and events, re-exported by the package's entry beside
 * the factories (types only: this module loads nothing).
 */
export type { PaymeOptions, PaymeMinimalCall, PaymeMinimalEvents } from './payme';
export type { ClickOptions, ClickMinimalRequest, ClickMinimalEvents } from './click';
export type { UzumOptions, UzumMinimalRequest, UzumMinimalEvents } from './uzum';
export type { StripeOptions, StripeMinimalEvent, StripeMinimalEvents } from './timestamped-members';
export type { GitHubOptions, GitHubMinimalPayload, GitHubMinimalEvents } from './github';
export type {
  TelegramBot,
  TelegramOptions,
  TelegramMinimalUpdate,
  TelegramMinimalEvents,
} from './telegram';
export type { ShopifyOptions, ShopifyMinimalPayload, ShopifyMinimalEvents } from './shopify';
export type {
  StandardWebhooksOptions,
  StandardWebhooksSettings,
  StandardWebhooksMinimalEvent,
  StandardWebhooksMinimalEvents,
  SecretEncoding,
} from './standard-webhooks';
export type { SlackOptions, SlackMinimalEnvelope, SlackMinimalEvents } from './timestamped-members';
export type { PaddleOptions, PaddleMinimalEvent, PaddleMinimalEvents } from './timestamped-members';
export type { SvixSenderOptions } from './svix-senders';
export type { RazorpayOptions, RazorpayMinimalEvent, RazorpayMinimalEvents } from './hmac-members';
export type { DiscordOptions, DiscordMinimalInteraction, DiscordMinimalEvents } from './discord';
export type { HmacOptions, SignedRequest } from './hmac';
export type { HmacItems, ItemReader } from './hmac-items';
export type { TwitchOptions, TwitchMinimalMessage, TwitchMinimalEvents } from './twitch';
export type { GitLabOptions, GitLabMinimalEvent, GitLabMinimalEvents } from './gitlab';
export type { SquareOptions, SquareMinimalEvent, SquareMinimalEvents } from './hmac-members-parts';
export type { TypeformOptions, TypeformMinimalEvent, TypeformMinimalEvents } from './hmac-members';
export type {
  BodySignedOptions,
  BodySignedMinimalEvent,
  BodySignedMinimalEvents,
  IntercomMinimalEvent,
  IntercomMinimalEvents,
} from './body-signed';
export type { WiseOptions, WiseMinimalEvent, WiseMinimalEvents } from './wise';
export type {
  PayPalOptions,
  PayPalSettings,
  PayPalMinimalEvent,
  PayPalMinimalEvents,
} from './paypal';
export type { FetchCertificate } from './paypal-certificates';
export type {
  CoinbaseOptions,
  CoinbaseMinimalEvent,
  CoinbaseMinimalEvents,
} from './hmac-members-events';
export type {
  LemonSqueezyOptions,
  LemonSqueezyMinimalEvent,
  LemonSqueezyMinimalEvents,
} from './hmac-members-events';
export type {
  AirwallexOptions,
  AirwallexMinimalEvent,
  AirwallexMinimalEvents,
} from './hmac-members-parts';
export type { PaystackOptions, PaystackMinimalEvent, PaystackMinimalEvents } from './hmac-members';
export type {
  CalendlyOptions,
  CalendlyMinimalEvent,
  CalendlyMinimalEvents,
} from './timestamped-members';
export type { SentryOptions, SentryMinimalEvent, SentryMinimalEvents } from './hmac-members';
export type {
  BitbucketOptions,
  BitbucketMinimalEvent,
  BitbucketMinimalEvents,
} from './hmac-members';
export type { PostmarkOptions, PostmarkMinimalRecord, PostmarkMinimalEvents } from './postmark';
export type { TwilioOptions, TwilioMinimalParameters, TwilioMinimalEvents } from './twilio';
export type { LinearOptions, LinearMinimalEvent, LinearMinimalEvents } from './hmac-members-events';
export type {
  MercadoPagoOptions,
  MercadoPagoMinimalEvent,
  MercadoPagoMinimalEvents,
} from './mercadopago';
export type { ZoomOptions, ZoomMinimalEvent, ZoomMinimalEvents } from './hmac-members-parts';
export type {
  BraintreeKeyPair,
  BraintreeOptions,
  BraintreeMinimalNotification,
  BraintreeMinimalEvents,
} from './braintree';
export type { MailgunOptions, MailgunMinimalEvent, MailgunMinimalEvents } from './mailgun';
export type { SendGridOptions, SendGridMinimalEvent, SendGridMinimalEvents } from './sendgrid';
export type { HubSpotOptions, HubSpotMinimalEvent, HubSpotMinimalEvents } from './hubspot';
export type { AdyenOptions, AdyenMinimalItem, AdyenMinimalEvents } from './adyen';
export type { MetaItem, MetaOptions, MetaMinimalEvents } from './meta';
export type { TelnyxOptions, TelnyxMinimalEvent, TelnyxMinimalEvents } from './telnyx';
export type { QStashOptions, QStashMinimalEvents } from './qstash';
export type { VonageOptions, VonageMinimalMessage, VonageMinimalEvents } from './vonage';
export type {
  PlaidKeyFetcher,
  PlaidMinimalEvents,
  PlaidMinimalWebhook,
  PlaidOptions,
  PlaidVerificationKey,
} from './plaid';
export type {
  CloudinaryOptions,
  CloudinaryMinimalNotification,
  CloudinaryMinimalEvents,
} from './cloudinary';
export type {
  DropboxSignOptions,
  DropboxSignMinimalCallback,
  DropboxSignMinimalEvents,
} from './dropbox-sign';
export type { TBankOptions, TBankMinimalNotification, TBankMinimalEvents } from './tbank';
export type {
  RobokassaAlgorithm,
  RobokassaOptions,
  RobokassaMinimalResult,
  RobokassaMinimalEvents,
} from './robokassa';
export type { MandrillOptions, MandrillMinimalEvent, MandrillMinimalEvents } from './mandrill';
export type {
  PagerDutyOptions,
  PagerDutyMinimalWebhook,
  PagerDutyMinimalEvents,
} from './pagerduty';
export type {
  ReplicateMinimalEvent,
  ReplicateMinimalEvents,
  StytchMinimalEvent,
  StytchMinimalEvents,
  SupabaseAuthHooksMinimalEvent,
  SupabaseAuthHooksMinimalEvents,
} from './svix-senders';
export type { WorkOSOptions, WorkOSMinimalEvent, WorkOSMinimalEvents } from './workos';
export type {
  ElevenLabsOptions,
  ElevenLabsMinimalEvent,
  ElevenLabsMinimalEvents,
} from './elevenlabs';
export type { SanityOptions, SanityMinimalEvents } from './sanity';
export type { MuxOptions, MuxMinimalEvent, MuxMinimalEvents } from './mux';
export type { WebflowOptions, WebflowMinimalEvent, WebflowMinimalEvents } from './webflow';
export type { ChargebeeOptions, ChargebeeMinimalEvent, ChargebeeMinimalEvents } from './chargebee';
export type { Auth0Options, Auth0MinimalLog, Auth0MinimalEvents } from './auth0';
export type { OktaOptions, OktaMinimalEvent, OktaMinimalEvents } from './okta';
export type {
  MicrosoftGraphOptions,
  MicrosoftGraphMinimalNotification,
  MicrosoftGraphMinimalEvents,
} from './microsoft-graph';
export type {
  AzureEventGridOptions,
  AzureEventGridMinimalEvent,
  AzureEventGridMinimalEvents,
} from './azure-event-grid';
export type { GoogleCalendarOptions, GoogleCalendarMinimalEvents } from './google-calendar';
export type { LineOptions, LineMinimalEvent, LineMinimalEvents } from './hmac-members-batches';
export type {
  NotionOptions,
  NotionMinimalEvent,
  NotionMinimalEvents,
} from './hmac-members-handshakes';
export type { EventMap, EventOf, EventsByType, Named, PresetFactory, TypedPreset } from './events';
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
export type {
  WooCommerceOptions,
  WooCommerceMinimalEvent,
  WooCommerceMinimalEvents,
} from './hmac-members-commerce';
export type { RecurlyOptions, RecurlyMinimalEvent, RecurlyMinimalEvents } from './recurly';
export type { RevolutOptions, RevolutMinimalEvent, RevolutMinimalEvents } from './revolut';
export type { PersonaOptions, PersonaMinimalEvent, PersonaMinimalEvents } from './persona';
export type {
  GoCardlessOptions,
  GoCardlessMinimalEvent,
  GoCardlessMinimalEvents,
} from './hmac-members-batches';
export type {
  ViberOptions,
  ViberMinimalEvent,
  ViberMinimalEvents,
} from './hmac-members-handshakes';
