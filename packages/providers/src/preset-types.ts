/**
 * @module The types of the presets' options and events, re-exported by the package's entry beside
 * the factories (types only: this module loads nothing). A preset's module exports its factory and
 * its documented types and nothing else, so all of it is re-exported; a module that holds helpers
 * too lists the types it lends.
 */
export type * from './payme';
export type * from './click';
export type * from './uzum';
export type * from './timestamped-members';
export type * from './github';
export type * from './telegram';
export type * from './shopify';
export type * from './svix-senders';
export type * from './hmac-members';
export type * from './discord';
export type * from './twitch';
export type * from './gitlab';
export type * from './hmac-members-parts';
export type * from './body-signed';
export type * from './wise';
export type * from './paypal';
export type * from './hmac-members-events';
export type * from './postmark';
export type * from './twilio';
export type * from './mercadopago';
export type * from './braintree';
export type * from './mailgun';
export type * from './sendgrid';
export type * from './hubspot';
export type * from './adyen';
export type * from './meta';
export type * from './telnyx';
export type * from './qstash';
export type * from './vonage';
export type * from './plaid';
export type * from './cloudinary';
export type * from './dropbox-sign';
export type * from './tbank';
export type * from './robokassa';
export type * from './mandrill';
export type * from './pagerduty';
export type * from './workos';
export type * from './elevenlabs';
export type * from './sanity';
export type * from './mux';
export type * from './webflow';
export type * from './chargebee';
export type * from './auth0';
export type * from './okta';
export type * from './microsoft-graph';
export type * from './azure-event-grid';
export type * from './google-calendar';
export type * from './hmac-members-batches';
export type * from './hmac-members-handshakes';
export type * from './hmac-members-commerce';
export type * from './recurly';
export type * from './revolut';
export type * from './persona';
export type {
  StandardWebhooksOptions,
  StandardWebhooksSettings,
  StandardWebhooksMinimalEvent,
  StandardWebhooksMinimalEvents,
  SecretEncoding,
} from './standard-webhooks';
export type { HmacOptions, SignedRequest } from './hmac';
export type { HmacItems, ItemReader } from './hmac-items';
export type { FetchCertificate } from './paypal-certificates';
export type { EventMap, EventOf, EventsByType, Named, PresetFactory, TypedPreset } from './events';
export type { ClockOption, ToleranceOption } from './options';
export type {
  OneOrMany,
  SecretCacheOptions,
  SecretLookup,
  SecretLookupContext,
  SecretOptions,
  SecretResolver,
  TimedSecretOptions,
} from './secrets';
export type { BasicAuthOptions, BasicCredentials } from './basic-auth';
