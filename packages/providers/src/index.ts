/**
 * Provider presets, one factory per provider: `providers.stripe({ secret })`,
 * `providers.payme(...)` and so on, after `import * as providers from '@webhook-idempotency/providers'`.
 * Each returns a `ProviderPreset` (from `@webhook-idempotency/core`) that every adapter accepts as
 * `preset`. A package of its own: the catalogue grows with the providers, never the guard.
 * @module @webhook-idempotency/providers
 */
export type * from './preset-types';
export { payme } from './payme';
export { click } from './click';
export { uzum } from './uzum';
export { stripe } from './timestamped-members';
export { github } from './github';
export { telegram } from './telegram';
export { shopify } from './shopify';
export { standardWebhooks } from './standard-webhooks';
export { slack } from './timestamped-members';
export { paddle } from './timestamped-members';
export { clerk, resend } from './svix-senders';
export { razorpay } from './hmac-members';
export { discord, DISCORD_INTERACTION_TYPES } from './discord';
export { hmac } from './hmac';
export { twitch } from './twitch';
export { gitlab } from './gitlab';
export { square } from './hmac-members-parts';
export { typeform } from './hmac-members';
export { checkout, intercom, vercel } from './body-signed';
export { wise, WISE_PRODUCTION_PUBLIC_KEY, WISE_SANDBOX_PUBLIC_KEY } from './wise';
export { paypal } from './paypal';
export { coinbase } from './hmac-members-events';
export { lemonsqueezy } from './hmac-members-events';
export { airwallex } from './hmac-members-parts';
export { paystack } from './hmac-members';
export { calendly } from './timestamped-members';
export { sentry } from './hmac-members';
export { bitbucket } from './hmac-members';
export { postmark } from './postmark';
export { twilio } from './twilio';
export { linear } from './hmac-members-events';
export { mercadopago } from './mercadopago';
export { zoom } from './hmac-members-parts';
export { braintree } from './braintree';
export { mailgun } from './mailgun';
export { sendgrid } from './sendgrid';
export { hubspot } from './hubspot';
export { adyen } from './adyen';
export { meta } from './meta';
export { telnyx } from './telnyx';
export { qstash } from './qstash';
export { vonage } from './vonage';
export { plaid } from './plaid';
export { cloudinary } from './cloudinary';
export { dropboxSign } from './dropbox-sign';
export { tbank } from './tbank';
export { robokassa } from './robokassa';
export { mandrill } from './mandrill';
export { pagerduty } from './pagerduty';
export { openai, replicate, stytch, polar, dodopayments, supabaseAuthHooks } from './svix-senders';
export { workos } from './workos';
export { elevenlabs } from './elevenlabs';
export { sanity } from './sanity';
export { mux } from './mux';
export { webflow } from './webflow';
export { chargebee } from './chargebee';
export { auth0 } from './auth0';
export { okta } from './okta';
export { microsoftGraph } from './microsoft-graph';
export { azureEventGrid } from './azure-event-grid';
export { googleCalendar } from './google-calendar';
export { line } from './hmac-members-batches';
export { notion } from './hmac-members-handshakes';
export { woocommerce } from './hmac-members-commerce';
export { recurly } from './recurly';
export { revolut } from './revolut';
export { persona } from './persona';
export { gocardless } from './hmac-members-batches';
export { viber } from './hmac-members-handshakes';
