/**
 * @module docs/providers.md: a preset on an Express route, and each factory with the key it reads.
 * test/providers.test.ts checks every `preset.key(…) // '…'` comment against the real key.
 */
// #region stripe-express
import * as providers from '@webhook-idempotency/providers';
import type { PlaidKeyFetcher } from '@webhook-idempotency/providers';
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

export function clerkResendKeys(request: HttpRequest): Record<string, Key> {
  // #region clerk-resend
  const clerkPreset = providers.clerk({ secret: process.env.CLERK_WEBHOOK_SIGNING_SECRET! });
  const resendPreset = providers.resend({ secret: process.env.RESEND_WEBHOOK_SECRET! });
  // #endregion clerk-resend
  const preset = clerkPreset;
  // #region clerk-resend
  preset.key(request); // 'msg_2yZwUhtgs5Ai8T9yRQJXA' (svix-id; the same for resendPreset)
  // #endregion clerk-resend
  return { request: preset.key(request), resend: resendPreset.key(request) };
}

export function razorpayKeys(request: HttpRequest): Record<string, Key> {
  // #region razorpay
  const preset = providers.razorpay({ secret: process.env.RAZORPAY_WEBHOOK_SECRET! });
  preset.key(request); // 'H0xbMB9XvKgvDp' (x-razorpay-event-id, not covered by the signature)
  // #endregion razorpay
  return { request: preset.key(request) };
}

export function discordKeys(request: HttpRequest): Record<string, Key> {
  // #region discord
  const preset = providers.discord({ publicKey: process.env.DISCORD_PUBLIC_KEY! });
  preset.key(request); // '1247856129870041118' (the interaction id; a PING is answered for you)
  // #endregion discord
  return { request: preset.key(request) };
}

export function twitchKeys(request: HttpRequest): Record<string, Key> {
  // #region twitch
  const preset = providers.twitch({ secret: process.env.TWITCH_EVENTSUB_SECRET! });
  preset.key(request); // 'e76c6bd4-55c9-4987-8304-da1588d8988b' (Twitch-Eventsub-Message-Id)
  // #endregion twitch
  return { request: preset.key(request) };
}

export function gitlabKeys(request: HttpRequest): Record<string, Key> {
  // #region gitlab
  const preset = providers.gitlab({ secretToken: process.env.GITLAB_WEBHOOK_TOKEN! });
  preset.key(request); // '908a6d9e-45fd-46c8-97e6-c4f350f219dd' (Idempotency-Key)
  // #endregion gitlab
  return { request: preset.key(request) };
}

export function squareKeys(request: HttpRequest): Record<string, Key> {
  // #region square
  const preset = providers.square({
    signatureKey: process.env.SQUARE_SIGNATURE_KEY!,
    notificationUrl: 'https://shop.example.com/webhooks/square', // exactly as on the subscription
  });
  preset.key(request); // '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc' (event_id)
  // #endregion square
  return { request: preset.key(request) };
}

export function typeformKeys(request: HttpRequest): Record<string, Key> {
  // #region typeform
  const preset = providers.typeform({ secret: process.env.TYPEFORM_WEBHOOK_SECRET! });
  preset.key(request); // '01HV7R3X9Q4W8B1Z6N2M5K7J3T' (event_id)
  // #endregion typeform
  return { request: preset.key(request) };
}

export function checkoutVercelKeys(request: HttpRequest): Record<string, Key> {
  // #region checkout-vercel
  const checkoutPreset = providers.checkout({ secret: process.env.CKO_WEBHOOK_SIGNATURE_KEY! });
  const vercelPreset = providers.vercel({ secret: process.env.VERCEL_WEBHOOK_SECRET! });
  const intercomPreset = providers.intercom({ secret: process.env.INTERCOM_CLIENT_SECRET! });
  // #endregion checkout-vercel
  const preset = checkoutPreset;
  // #region checkout-vercel
  preset.key(request); // 'evt_az5sblvku4ge3dwpztvyizgcau' (the body's id; the same for the others)
  // #endregion checkout-vercel
  return {
    request: preset.key(request),
    vercel: vercelPreset.key(request),
    intercom: intercomPreset.key(request),
  };
}

export function hmacKeys(request: HttpRequest): Record<string, Key> {
  // #region hmac
  const preset = providers.hmac({
    provider: 'acme', // the receipts' provider name
    secret: process.env.ACME_WEBHOOK_SECRET!, // secretEncoding: 'hex' | 'base64' when it is not text
    signatureHeader: 'x-acme-signature',
    algorithm: 'sha256', // or 'sha1', 'sha512'
    encoding: 'hex', // or 'base64'
    prefix: 'sha256=', // removed before comparing
    timestamp: { header: 'x-acme-timestamp', toleranceSeconds: 300 }, // when one is signed
    signedPayload: (r) => [`${r.timestamp}.`, r.body], // default: the raw body alone
    key: 'x-acme-delivery', // a header, or (request) => id
    retentionDays: 7, // the provider's retry window and a margin
  });
  preset.key(request); // 'acme_dlv_31'
  // #endregion hmac
  return { request: preset.key(request) };
}

export function twilioKeys(request: HttpRequest, gatherAction: HttpRequest): Record<string, Key> {
  // #region twilio
  const preset = providers.twilio({
    authToken: process.env.TWILIO_AUTH_TOKEN!,
    baseUrl: 'https://example.com', // the scheme, host and port Twilio calls, not the proxy's upstream
  });
  preset.key(request); // 'f7d1c2a4-idem-0042' (I-Twilio-Idempotency-Token)
  preset.key(gatherAction); // 'CA0123456789abcdef0123456789abcdef:686292ebbfb95b30f2c9af1d73e106bb' (no token: the SID, a digest of the signed URL and fields)
  // #endregion twilio
  return { request: preset.key(request), gatherAction: preset.key(gatherAction) };
}

export function linearKeys(request: HttpRequest): Record<string, Key> {
  // #region linear
  const preset = providers.linear({ secret: process.env.LINEAR_WEBHOOK_SECRET! });
  preset.key(request); // '6a1f3b8e-2d4c-4b8a-9e7f-0c5d1a2b3c4d' (Linear-Delivery, not signed)
  // #endregion linear
  return { request: preset.key(request) };
}

export function mercadopagoKeys(request: HttpRequest): Record<string, Key> {
  // #region mercadopago
  const preset = providers.mercadopago({ secret: process.env.MP_WEBHOOK_SECRET! });
  preset.key(request); // '999999999:bb56a2f1-6aae-46ac-982e-9dcd3581d08e' (data.id:x-request-id)
  // #endregion mercadopago
  return { request: preset.key(request) };
}

export function zoomKeys(request: HttpRequest): Record<string, Key> {
  // #region zoom
  const preset = providers.zoom({ secretToken: process.env.ZOOM_WEBHOOK_SECRET_TOKEN! });
  preset.key(request); // 'meeting.started:1733306400123:a85e8ea27d6e612e0e0684e9d4344778' (event:event_ts:payload digest)
  // #endregion zoom
  return { request: preset.key(request) };
}

export function braintreeKeys(request: HttpRequest): Record<string, Key> {
  // #region braintree
  const preset = providers.braintree({
    publicKey: process.env.BRAINTREE_PUBLIC_KEY!,
    privateKey: process.env.BRAINTREE_PRIVATE_KEY!,
  });
  preset.key(request); // 'subscription_charged_successfully:2026-12-04T10:00:00Z:fe5ced463ebb34150930bee4637a258a'
  // #endregion braintree
  return { request: preset.key(request) };
}

export function mailgunKeys(request: HttpRequest): Record<string, Key> {
  // #region mailgun
  const preset = providers.mailgun({ signingKey: process.env.MAILGUN_WEBHOOK_SIGNING_KEY! });
  preset.key(request); // 'CPgfbmQMTCKtHW6uIWtuVe' (event-data.id)
  // #endregion mailgun
  return { request: preset.key(request) };
}

// Signed tokens and public keys.
export function telnyxKeys(request: HttpRequest): Record<string, Key> {
  // #region telnyx
  const preset = providers.telnyx({ publicKey: process.env.TELNYX_PUBLIC_KEY! });
  preset.key(request); // 'b301ed3f-1490-491f-995f-6e64e69674d4' (data.id, the event's id)
  // #endregion telnyx
  return { request: preset.key(request) };
}

export function qstashKeys(request: HttpRequest): Record<string, Key> {
  // #region qstash
  const preset = providers.qstash({
    // Both keys of the QStash console: Upstash signs with the next one once it rolls them.
    signingKey: [process.env.QSTASH_CURRENT_SIGNING_KEY!, process.env.QSTASH_NEXT_SIGNING_KEY!],
    url: 'https://example.com/api/qstash', // the destination URL as published: the token's subject
  });
  preset.key(request); // 'msg_26hZCxZCuWyyTWPmSVBrNC1RADwm' (Upstash-Message-Id, not signed)
  // #endregion qstash
  return { request: preset.key(request) };
}

export function vonageKeys(request: HttpRequest): Record<string, Key> {
  // #region vonage
  const preset = providers.vonage({ signatureSecret: process.env.VONAGE_SIGNATURE_SECRET! });
  preset.key(request); // 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001:delivered' (message_uuid:status)
  // #endregion vonage
  return { request: preset.key(request) };
}

export function plaidKeys(request: HttpRequest, fetchKey: PlaidKeyFetcher): Record<string, Key> {
  // #region plaid
  const preset = providers.plaid({
    // Your Plaid client's /webhook_verification_key/get: called once per new key id, then kept.
    fetchKey, // async (keyId) => (await plaidClient.webhookVerificationKeyGet({ key_id: keyId })).data.key
  });
  preset.key(request); // 'ITEM:ERROR:65ec46abd6d9dfdad1c6f0016bab3dbba64a871eeff115fbd85b1722f58e10e8' (type:code:body digest)
  // #endregion plaid
  return { request: preset.key(request) };
}

export function cloudinaryKeys(request: HttpRequest): Record<string, Key> {
  // #region cloudinary
  const preset = providers.cloudinary({
    apiSecret: process.env.CLOUDINARY_API_SECRET!,
    signatureAlgorithm: 'sha1', // or 'sha256', as your account signs
  });
  preset.key(request); // 'upload:24eda89ab3ef6563ade512f00c630d8d10dcd8a6b283a62c2d7cc557023d37ea'
  // #endregion cloudinary
  return { request: preset.key(request) };
}

export function dropboxSignKeys(request: HttpRequest): Record<string, Key> {
  // #region dropbox-sign
  // Dropbox Sign posts a multipart form: keep its raw bytes, e.g. express.raw({ type: 'multipart/form-data' }).
  const preset = providers.dropboxSign({ apiKey: process.env.DROPBOX_SIGN_API_KEY! });
  preset.key(request); // 'signature_request_signed:1765022400:fa5c8a0b0f492d768749333ad6fcc214c111e967:5a3f2b1c'
  // Your handler answers every event with the text 'Hello API Event Received'.
  // #endregion dropbox-sign
  return { request: preset.key(request) };
}

export function tbankKeys(request: HttpRequest): Record<string, Key> {
  // #region tbank
  const preset = providers.tbank({ password: process.env.TBANK_TERMINAL_PASSWORD! });
  preset.key(request); // '7001234567:CONFIRMED:50000' (PaymentId:Status:Amount)
  // Your handler answers every notification with the text 'OK'.
  // #endregion tbank
  return { request: preset.key(request) };
}

export function robokassaKeys(request: HttpRequest): Record<string, Key> {
  // #region robokassa
  const preset = providers.robokassa({
    password2: process.env.ROBOKASSA_PASSWORD2!,
    signatureAlgorithm: 'md5', // as the shop's technical settings say
  });
  preset.key(request); // '450009' (InvId)
  // Your handler answers with the text 'OK' + InvId: 'OK450009'.
  // #endregion robokassa
  return { request: preset.key(request) };
}

export function mandrillKeys(
  request: HttpRequest,
): ReturnType<NonNullable<ProviderPreset['items']>> {
  // #region mandrill
  const preset = providers.mandrill({
    webhookKey: process.env.MANDRILL_WEBHOOK_KEY!,
    webhookUrl: 'https://example.com/webhooks/mandrill', // exactly as entered in Mandrill
  });
  preset.items?.(request); // one item per event of mandrill_events, keyed 'sha256:<its content digest>'
  // #endregion mandrill
  return preset.items?.(request);
}

export function pagerdutyKeys(request: HttpRequest): Record<string, Key> {
  // #region pagerduty
  const preset = providers.pagerduty({ secret: process.env.PAGERDUTY_WEBHOOK_SECRET! });
  preset.key(request); // '01DEN3DAPKRM3UYEXIY6YVKYOD' (event.id)
  // #endregion pagerduty
  return { request: preset.key(request) };
}

export function openaiKeys(request: HttpRequest): Record<string, Key> {
  // #region openai
  const preset = providers.openai({ secret: process.env.OPENAI_WEBHOOK_SECRET! });
  preset.key(request); // 'wh_685342e6c53c8190a1be43f081506c52' (webhook-id)
  // #endregion openai
  return { request: preset.key(request) };
}

export function replicateKeys(request: HttpRequest): Record<string, Key> {
  // #region replicate
  const preset = providers.replicate({ secret: process.env.REPLICATE_WEBHOOK_SECRET! });
  preset.key(request); // 'msg_2hdGs8R9kM7xv3ZqNwe1Lt0bYcA' (webhook-id)
  // #endregion replicate
  return { request: preset.key(request) };
}

export function stytchKeys(request: HttpRequest): Record<string, Key> {
  // #region stytch
  const preset = providers.stytch({ secret: process.env.STYTCH_WEBHOOK_SECRET! });
  preset.key(request); // 'msg_2zQbH4tYk9LrVw3XcN8sPd1aGfE' (svix-id)
  // #endregion stytch
  return { request: preset.key(request) };
}

export function polarKeys(request: HttpRequest): Record<string, Key> {
  // #region polar
  const preset = providers.polar({ secret: process.env.POLAR_WEBHOOK_SECRET! }); // as shown, not decoded
  preset.key(request); // 'msg_2wXk7Qe9RtYb4NcLp3ZsHd8JfGa' (webhook-id)
  // #endregion polar
  return { request: preset.key(request) };
}

export function dodopaymentsKeys(request: HttpRequest): Record<string, Key> {
  // #region dodopayments
  const preset = providers.dodopayments({ secret: process.env.DODO_PAYMENTS_WEBHOOK_KEY! });
  preset.key(request); // 'msg_2xVb8Kq3TnWe6RzYp1LcHd4JsFa' (webhook-id)
  // #endregion dodopayments
  return { request: preset.key(request) };
}

export function supabaseAuthHooksKeys(request: HttpRequest): Record<string, Key> {
  // #region supabase-auth-hooks
  const preset = providers.supabaseAuthHooks({ secret: process.env.SEND_EMAIL_HOOK_SECRET! }); // 'v1,whsec_…'
  preset.key(request); // 'msg_2yTq5Wc8NbZe3RxKp6LvHd1JsGa' (webhook-id)
  // #endregion supabase-auth-hooks
  return { request: preset.key(request) };
}

export function chargebeeKeys(request: HttpRequest): Record<string, Key> {
  // #region chargebee
  const preset = providers.chargebee({
    username: 'chargebee', // the pair under "Protect webhook URL with basic authentication"
    password: process.env.CHARGEBEE_WEBHOOK_PASSWORD!,
  });
  preset.key(request); // 'ev_16BHbhF4s42tO2lK' (event id)
  // #endregion chargebee
  return { request: preset.key(request) };
}

export function auth0Keys(request: HttpRequest): Key[] | undefined {
  // #region auth0
  const preset = providers.auth0({
    authorization: process.env.AUTH0_LOG_STREAM_TOKEN!, // the stream's Authorization Token, whole
  });
  // JSON lines is no JSON a parser reads: give this route express.raw({ type: '*/*' }).
  preset.items?.(request)?.map((item) => item.key); // ['90020261201100000001', '90020261201100000002'] (log_id of each log)
  // #endregion auth0
  return preset.items?.(request)?.map((item) => item.key);
}

export function oktaKeys(request: HttpRequest): Key[] | undefined {
  // #region okta
  const preset = providers.okta({
    secret: process.env.OKTA_EVENT_HOOK_SECRET!, // the hook's "Authentication secret"
    header: 'authorization', // its "Authentication field" (the default)
  });
  preset.items?.(request)?.map((item) => item.key); // ['f8ec1c7c-1e04-11f1-a9f3-6f3d2b0c0001'] (uuid of each data.events[])
  // #endregion okta
  return preset.items?.(request)?.map((item) => item.key);
}

export function microsoftGraphKeys(request: HttpRequest): Key[] | undefined {
  // #region microsoft-graph
  const preset = providers.microsoftGraph({
    clientState: process.env.GRAPH_CLIENT_STATE!, // the clientState you set on the subscriptions
  });
  // Graph gives a notification no id: each item's key is a digest of what changed.
  preset.items?.(request)?.map((item) => item.key); // ['sha256:…'] (one per notification of value[])
  // #endregion microsoft-graph
  return preset.items?.(request)?.map((item) => item.key);
}

export function azureEventGridKeys(request: HttpRequest): Key[] | undefined {
  // #region azure-event-grid
  // The subscription's endpoint: https://example.com/webhooks/eventgrid?code=<secret>
  const preset = providers.azureEventGrid({ secret: process.env.EVENT_GRID_URL_SECRET! });
  preset.items?.(request)?.map((item) => item.key); // ['831e1650-001e-001b-66ab-eeb76e069631'] (id of each event)
  // #endregion azure-event-grid
  return preset.items?.(request)?.map((item) => item.key);
}

export function googleCalendarKeys(request: HttpRequest): Record<string, Key> {
  // #region google-calendar
  // events.watch({ requestBody: { id: channelId, type: 'web_hook', address, token } })
  const preset = providers.googleCalendar({ token: process.env.GOOGLE_CHANNEL_TOKEN! });
  preset.key(request); // '01234567-89ab-cdef-0123456789ab:398005' (X-Goog-Channel-ID:X-Goog-Message-Number)
  // #endregion google-calendar
  return { request: preset.key(request) };
}
