/**
 * Every preset with two secrets of its own kind, and a delivery each signs under one of them,
 * made by the test kit (`@webhook-idempotency/providers/testing`, whose signers the providers'
 * SDKs judge): so a preset given several secrets is shown to accept the kit's deliveries.
 * `build(secrets)` makes the preset from a list of secrets; `sign(secret)` a delivery under one.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { TypedPreset } from '@webhook-idempotency/providers';
import * as kit from '@webhook-idempotency/providers/testing';
import { SIGNER, SIGNER_KEY } from '../fixtures/paypal-certificates';
import { makeRequest } from '../helpers';

/** One preset, as the rotation and tenant tests drive it. */
export interface Signer<S = unknown> {
  /** Two secrets of the preset's kind, and a third that signs nothing the preset trusts. */
  readonly secrets: readonly [S, S, S];
  /** The preset given `secrets` (as its fixed secrets) or `resolveSecret`. */
  build(
    secrets: { fixed: readonly S[] } | { resolveSecret: providers.SecretResolver<S> },
  ): TypedPreset;
  /** A delivery signed under `secret`, with `id` in its receipt key. */
  sign(secret: S, id?: string): HttpRequest;
}

export const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const clock = () => NOW * 1000;

/** The neutral request an adapter builds from the kit's delivery. */
const asRequest = (delivery: kit.Delivery): HttpRequest =>
  makeRequest({
    method: delivery.method,
    url: delivery.path,
    headers: { ...delivery.headers },
    rawBody: delivery.body,
  });

/** The preset options for a list of secrets under `option`, or a resolver. */
function secretOption<S>(option: string, given: Parameters<Signer<S>['build']>[0]) {
  return 'fixed' in given ? { [option]: given.fixed } : { resolveSecret: given.resolveSecret };
}

/** A signer whose preset takes strings under `option`, built by `make` with the rest of its options. */
function strings(
  option: string,
  make: (options: Record<string, unknown>) => TypedPreset,
  sign: (secret: string, id: string) => kit.Delivery,
  secrets: readonly [string, string, string] = [
    'old-secret-0001',
    'new-secret-0002',
    'not-ours-0003',
  ],
): Signer<string> {
  return {
    secrets,
    build: (given) => make(secretOption(option, given)),
    sign: (s, id = 'e1') => asRequest(sign(s, id)),
  };
}

const whsec = (text: string) => `whsec_${Buffer.from(text).toString('base64')}`;
const svixSecrets = [
  whsec('old-key-bytes'),
  whsec('new-key-bytes'),
  whsec('not-our-bytes'),
] as const;
const svixBody = { type: 'user.created', data: {} };

/** A sender of Standard Webhooks that the package names (OpenAI…): its preset and kit signer. */
function svixSender(
  preset: (options: never) => TypedPreset,
  signer: typeof kit.openai,
): Signer<string> {
  return {
    ...strings(
      'secret',
      (o) => preset({ ...o, clock } as never),
      (secret, id) => signer({ secret, clock }).event(svixBody, { id }),
    ),
    secrets: svixSecrets,
  };
}

function keyPairs(type: 'ed25519' | 'rsa' | 'ec') {
  const make = () =>
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
        : generateKeyPairSync('ed25519');
  return [make(), make(), make()] as const;
}
const ed = keyPairs('ed25519');
const rsa = keyPairs('rsa');
const ec = keyPairs('ec');
const privateOf = (
  pairs: readonly { publicKey: KeyObject; privateKey: KeyObject }[],
  key: string,
) =>
  pairs.find(
    (pair) =>
      publicText(pair.publicKey, pairs === ed ? 'hex' : pairs === ec ? 'der' : 'pem') === key,
  )!.privateKey;
function publicText(key: KeyObject, form: 'hex' | 'der' | 'pem'): string {
  if (form === 'hex')
    return (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12).toString('hex');
  if (form === 'der')
    return (key.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
  return key.export({ format: 'pem', type: 'spki' }) as string;
}
/** A public key as Telnyx shows it: base64 of its 32 raw bytes. */
const rawBase64 = (key: KeyObject) =>
  (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('base64');
const three = <T>(make: (pair: (typeof ed)[number]) => T, pairs: typeof ed) =>
  [make(pairs[0]), make(pairs[1]), make(pairs[2])] as const;

/** A signer whose secrets are public keys of `pairs` (in `form`), signed by the matching private key. */
function keys(
  pairs: typeof ed,
  form: 'hex' | 'der' | 'pem',
  build: Signer<string>['build'],
  sign: (privateKey: KeyObject, id: string) => kit.Delivery,
): Signer<string> {
  return {
    secrets: three((pair) => publicText(pair.publicKey, form), pairs),
    build,
    sign: (key, id = 'e1') => asRequest(sign(privateOf(pairs, key), id)),
  };
}

const SQUARE_URL = 'https://shop.example.com/webhooks/square';
const QSTASH_URL = 'https://app.example.com/api/qstash';
const MANDRILL_URL = 'https://example.com/webhooks/mandrill';
/** Three Plaid signers, each with its own key and kid: their `fetchKey`s are the preset's "secrets". */
const PLAID_SIGNERS = ['kid-old', 'kid-new', 'kid-not-ours'].map((keyId) =>
  kit.plaid({ keyId, clock }),
);
const HUBSPOT_URL = 'https://app.example.com/webhooks/hubspot';
const ACME = { signatureHeader: 'x-acme-signature', key: 'x-acme-delivery' } as const;
type Pair = { username: string; password: string };

/** Every preset of the package, by factory name. */
// biome-ignore lint/suspicious/noExplicitAny: each signer has its own secret type (a string, a key pair, a key fetcher); a signer's secrets only ever go back to that signer, which a record of one element type cannot say.
export const SIGNERS: Record<string, Signer<any>> = {
  stripe: strings(
    'secret',
    (o) => providers.stripe({ ...o, clock } as never),
    (secret, id) => kit.stripe({ secret, clock }).event({ id, type: 'payment_intent.succeeded' }),
  ),
  github: strings(
    'secret',
    (o) => providers.github(o as never),
    (secret, id) => kit.github({ secret }).event({ zen: 'hi' }, { event: 'ping', delivery: id }),
  ),
  shopify: strings(
    'secret',
    (o) => providers.shopify(o as never),
    (secret, id) =>
      kit.shopify({ secret, shop: 'a.myshopify.com' }).event({ id: 1 }, { webhookId: id }),
  ),
  standardWebhooks: {
    ...strings(
      'secret',
      (o) => providers.standardWebhooks({ ...o, clock } as never),
      (secret, id) => kit.standardWebhooks({ secret, clock }).event(svixBody, { id }),
    ),
    secrets: svixSecrets,
  },
  clerk: {
    ...strings(
      'secret',
      (o) => providers.clerk({ ...o, clock } as never),
      (secret, id) => kit.clerk({ secret, clock }).event(svixBody, { id }),
    ),
    secrets: svixSecrets,
  },
  resend: {
    ...strings(
      'secret',
      (o) => providers.resend({ ...o, clock } as never),
      (secret, id) => kit.resend({ secret, clock }).event(svixBody, { id }),
    ),
    secrets: svixSecrets,
  },
  slack: strings(
    'signingSecret',
    (o) => providers.slack({ ...o, clock } as never),
    (signingSecret, id) =>
      kit.slack({ signingSecret, clock }).event({
        type: 'event_callback',
        api_app_id: 'A1',
        event_id: id,
        event: { type: 'app_mention' },
      }),
  ),
  paddle: strings(
    'secret',
    (o) => providers.paddle({ ...o, clock } as never),
    (secret, id) =>
      kit.paddle({ secret, clock }).event({ event_id: id, event_type: 'transaction.completed' }),
  ),
  razorpay: strings(
    'secret',
    (o) => providers.razorpay(o as never),
    (secret, id) => kit.razorpay({ secret }).event({ event: 'payment.captured' }, { id }),
  ),
  discord: keys(
    ed,
    'hex',
    (given) => providers.discord({ ...secretOption('publicKey', given), clock } as never),
    (privateKey, id) => kit.discord({ privateKey, clock }).event({ id, type: 2 }),
  ),
  hmac: strings(
    'secret',
    (o) => providers.hmac({ ...o, ...ACME, provider: 'acme', retentionDays: 7 } as never),
    (secret, id) => kit.hmac({ secret, ...ACME }).event({ a: 1 }, { id }),
  ),
  twitch: strings(
    'secret',
    (o) => providers.twitch({ ...o, clock } as never),
    (secret, id) =>
      kit
        .twitch({ secret, clock })
        .event({ subscription: { type: 'channel.follow' }, event: {} }, { id }),
  ),
  gitlab: strings(
    'secretToken',
    (o) => providers.gitlab(o as never),
    (secretToken, id) =>
      kit.gitlab({ secretToken }).event({ object_kind: 'push' }, { idempotencyKey: id }),
  ),
  square: strings(
    'signatureKey',
    (o) => providers.square({ ...o, notificationUrl: SQUARE_URL } as never),
    (signatureKey, id) =>
      kit
        .square({ signatureKey, notificationUrl: SQUARE_URL })
        .event({ event_id: id, type: 'payment.created' }),
  ),
  typeform: strings(
    'secret',
    (o) => providers.typeform(o as never),
    (secret, id) => kit.typeform({ secret }).event({ event_id: id, event_type: 'form_response' }),
  ),
  checkout: strings(
    'secret',
    (o) => providers.checkout(o as never),
    (secret, id) => kit.checkout({ secret }).event({ id, type: 'payment_approved' }),
  ),
  vercel: strings(
    'secret',
    (o) => providers.vercel(o as never),
    (secret, id) => kit.vercel({ secret }).event({ id, type: 'deployment.created' }),
  ),
  intercom: strings(
    'secret',
    (o) => providers.intercom(o as never),
    (secret, id) => kit.intercom({ secret }).event({ id, topic: 'ping' }),
  ),
  wise: keys(
    rsa,
    'pem',
    (given) => providers.wise(secretOption('publicKey', given) as never),
    (privateKey, id) =>
      kit
        .wise({ privateKey })
        .event({ event_type: 'transfers#state-change', data: {} }, { deliveryId: id }),
  ),
  paypal: strings(
    'webhookId',
    (o) =>
      providers.paypal({
        ...o,
        fetchCertificate: async () => SIGNER,
        clock: () => Date.parse('2030-01-01T00:00:00Z'),
      } as never),
    (webhookId, id) =>
      kit
        .paypal({
          webhookId,
          privateKey: SIGNER_KEY,
          clock: () => Date.parse('2026-12-01T10:00:01Z'),
        })
        .event({ id, event_type: 'PAYMENT.CAPTURE.COMPLETED' }),
  ),
  coinbase: strings(
    'secret',
    (o) => providers.coinbase(o as never),
    (secret, id) =>
      kit.coinbase({ secret }).event({ id: 'd1', event: { id, type: 'charge:confirmed' } }),
  ),
  lemonsqueezy: strings(
    'secret',
    (o) => providers.lemonsqueezy(o as never),
    (secret, id) =>
      kit
        .lemonsqueezy({ secret })
        .event({ meta: { event_name: 'order_created' }, data: { type: 'orders', id } }),
  ),
  airwallex: strings(
    'secret',
    (o) => providers.airwallex({ ...o, clock } as never),
    (secret, id) =>
      kit.airwallex({ secret, clock }).event({ id, name: 'payment_intent.succeeded' }),
  ),
  paystack: strings(
    'secretKey',
    (o) => providers.paystack(o as never),
    (secretKey, id) => kit.paystack({ secretKey }).event({ event: 'charge.success', data: { id } }),
  ),
  calendly: strings(
    'signingKey',
    (o) => providers.calendly({ ...o, clock } as never),
    (signingKey, id) =>
      kit.calendly({ signingKey, clock }).event({
        event: 'invitee.created',
        payload: { uri: `https://api.calendly.com/${id}` },
      }),
  ),
  sentry: strings(
    'clientSecret',
    (o) => providers.sentry(o as never),
    (clientSecret, id) => kit.sentry({ clientSecret }).event({ action: 'created' }, { id }),
  ),
  bitbucket: strings(
    'secret',
    (o) => providers.bitbucket(o as never),
    (secret, id) => kit.bitbucket({ secret }).event({ push: {} }, { id }),
  ),
  postmark: {
    secrets: [
      { username: 'hook', password: 'old-pass' },
      { username: 'hook', password: 'new-pass' },
      { username: 'hook', password: 'not-ours' },
    ],
    build: (given) => providers.postmark(secretOption('credentials', given) as never),
    sign: (pair: Pair, id = 'e1') =>
      asRequest(kit.postmark(pair).event({ RecordType: 'Bounce', ID: id })),
  },
  twilio: strings(
    'authToken',
    (o) => providers.twilio({ ...o, baseUrl: 'https://example.com' } as never),
    (authToken, id) =>
      kit
        .twilio({ authToken, url: 'https://example.com/sms' })
        .event({ Body: 'hi', MessageSid: `SM${'0'.repeat(32)}` }, { idempotencyToken: id }),
  ),
  linear: strings(
    'secret',
    (o) => providers.linear({ ...o, clock } as never),
    (secret, id) =>
      kit.linear({ secret, clock }).event({ type: 'Issue', action: 'create' }, { delivery: id }),
  ),
  mercadopago: strings(
    'secret',
    (o) => providers.mercadopago(o as never),
    (secret, id) =>
      kit.mercadopago({ secret }).event({ type: 'payment' }, { requestId: id, dataId: '123' }),
  ),
  zoom: strings(
    'secretToken',
    (o) => providers.zoom(o as never),
    (secretToken, id) =>
      kit.zoom({ secretToken }).event({ event: 'meeting.started', event_ts: NOW, payload: { id } }),
  ),
  braintree: {
    secrets: [
      { publicKey: 'pub_old', privateKey: 'priv-old' },
      { publicKey: 'pub_new', privateKey: 'priv-new' },
      { publicKey: 'pub_old', privateKey: 'priv-forged' },
    ],
    build: (given) => providers.braintree(secretOption('keys', given) as never),
    sign: (pair: { publicKey: string; privateKey: string }, id = 'e1') =>
      asRequest(kit.braintree(pair).event({ kind: 'check', subject: `<id>${id}</id>` })),
  },
  mailgun: strings(
    'signingKey',
    (o) => providers.mailgun(o as never),
    (signingKey, id) => kit.mailgun({ signingKey }).event({ id, event: 'delivered' }),
  ),
  sendgrid: keys(
    ec,
    'der',
    (given) => providers.sendgrid({ ...secretOption('publicKey', given), clock } as never),
    (privateKey, id) =>
      kit.sendgrid({ privateKey, clock }).batch([{ sg_event_id: id, event: 'delivered' }]),
  ),
  hubspot: strings(
    'clientSecret',
    (o) => providers.hubspot({ ...o, targetUrl: HUBSPOT_URL, clock } as never),
    (clientSecret, id) =>
      kit
        .hubspot({ clientSecret, targetUrl: HUBSPOT_URL, clock })
        .batch([
          { portalId: 1, subscriptionId: 2, eventId: id, subscriptionType: 'contact.creation' },
        ]),
  ),
  adyen: {
    secrets: ['0a1b2c3d4e5f', 'a0b1c2d3e4f5', 'ffeeddccbbaa'],
    build: (given) => providers.adyen(secretOption('hmacKey', given) as never),
    sign: (hmacKey: string, id = 'e1') =>
      asRequest(
        kit.adyen({ hmacKey }).batch([
          {
            pspReference: id,
            merchantAccountCode: 'M',
            merchantReference: 'r',
            amount: { value: 100, currency: 'EUR' },
            eventCode: 'AUTHORISATION',
            success: 'true',
          },
        ]),
      ),
  },
  meta: strings(
    'appSecret',
    (o) => providers.meta(o as never),
    (appSecret, id) =>
      kit.meta({ appSecret }).event({
        object: 'page',
        entry: [{ id: '1', time: 1, messaging: [{ message: { mid: id } }] }],
      }),
  ),
  line: strings(
    'channelSecret',
    (o) => providers.line(o as never),
    (channelSecret, id) =>
      kit.line({ channelSecret }).event({ type: 'follow', webhookEventId: id }),
  ),
  notion: strings(
    'verificationToken',
    (o) => providers.notion(o as never),
    (verificationToken, id) =>
      kit.notion({ verificationToken }).event({ id, type: 'page.created' }),
  ),
  woocommerce: strings(
    'secret',
    (o) => providers.woocommerce(o as never),
    (secret, id) => kit.woocommerce({ secret }).event({ id, status: 'processing' }),
  ),
  gocardless: strings(
    'secret',
    (o) => providers.gocardless(o as never),
    (secret, id) =>
      kit.gocardless({ secret }).event({ id, resource_type: 'payments', action: 'confirmed' }),
  ),
  viber: strings(
    'authToken',
    (o) => providers.viber(o as never),
    (authToken, id) =>
      kit.viber({ authToken }).event({ event: 'message', message_token: id, sender: { id: 'u1' } }),
  ),
  payme: strings(
    'password',
    (o) => providers.payme(o as never),
    (password, id) => kit.payme({ password }).rpc('CreateTransaction', { id }, { id: 1 }),
  ),
  click: strings(
    'secretKey',
    (o) => providers.click(o as never),
    (secretKey, id) =>
      kit.click({ secretKey }).prepare({
        click_trans_id: id,
        service_id: '2',
        click_paydoc_id: '3',
        merchant_trans_id: '4',
        amount: '1000',
      }),
    ['old-key', 'new-key', 'not-ours'],
  ),
  uzum: {
    secrets: [
      { username: 'uzum', password: 'old-pass' },
      { username: 'uzum', password: 'new-pass' },
      { username: 'uzum', password: 'not-ours' },
    ],
    build: (given) => providers.uzum(secretOption('credentials', given) as never),
    sign: (pair: Pair, id = 'e1') =>
      asRequest(kit.uzum(pair).create({ serviceId: 1, transId: id })),
  },
  telegram: strings(
    'secretToken',
    (o) => providers.telegram({ ...o, botId: 1 } as never),
    (secretToken, id) =>
      kit
        .telegram({ secretToken })
        .event({ update_id: Number(id.replace(/\D/g, '') || '1'), message: {} }),
    ['old_token_1', 'new_token_2', 'not_ours_3'],
  ),
  // Signed tokens and public keys.
  telnyx: {
    secrets: three((pair) => rawBase64(pair.publicKey), ed),
    build: (given) => providers.telnyx({ ...secretOption('publicKey', given), clock } as never),
    sign: (key: string, id = 'e1') =>
      asRequest(
        kit
          .telnyx({
            privateKey: ed.find((pair) => rawBase64(pair.publicKey) === key)!.privateKey,
            clock,
          })
          .event({ data: { id, event_type: 'message.received' } }),
      ),
  },
  qstash: strings(
    'signingKey',
    (o) => providers.qstash({ ...o, url: QSTASH_URL, clock } as never),
    (signingKey, id) =>
      kit
        .qstash({ signingKey, url: QSTASH_URL, clock })
        .event({ hello: 'world' }, { messageId: id }),
    ['sig_old_key_0001', 'sig_new_key_0002', 'sig_not_ours_003'],
  ),
  vonage: strings(
    'signatureSecret',
    (o) => providers.vonage({ ...o, clock } as never),
    (signatureSecret, id) =>
      kit.vonage({ signatureSecret, clock }).event({ message_uuid: id, status: 'delivered' }),
  ),
  plaid: {
    secrets: PLAID_SIGNERS.map((signer) => signer.fetchKey) as unknown as Signer['secrets'],
    build: (given) => providers.plaid({ ...secretOption('fetchKey', given), clock } as never),
    sign: (fetchKey: unknown, id = 'e1') =>
      asRequest(
        PLAID_SIGNERS.find((signer) => signer.fetchKey === fetchKey)!.event({
          webhook_type: 'TRANSACTIONS',
          webhook_code: 'SYNC_UPDATES_AVAILABLE',
          item_id: id,
        }),
      ),
  },
  openai: svixSender(providers.openai, kit.openai),
  replicate: svixSender(providers.replicate, kit.replicate),
  stytch: svixSender(providers.stytch, kit.stytch),
  polar: svixSender(providers.polar, kit.polar),
  dodopayments: svixSender(providers.dodopayments, kit.dodopayments),
  supabaseAuthHooks: svixSender(providers.supabaseAuthHooks, kit.supabaseAuthHooks),
  chargebee: {
    secrets: [
      { username: 'chargebee', password: 'old-pass' },
      { username: 'chargebee', password: 'new-pass' },
      { username: 'chargebee', password: 'not-ours' },
    ],
    build: (given) => providers.chargebee(secretOption('credentials', given) as never),
    sign: (pair: Pair, id = 'e1') =>
      asRequest(kit.chargebee(pair).event({ id, event_type: 'subscription_created' })),
  },
  auth0: strings(
    'authorization',
    (o) => providers.auth0(o as never),
    (authorization, id) =>
      kit.auth0({ authorization }).batch([{ log_id: id, data: { type: 's', log_id: id } }]),
  ),
  okta: strings(
    'secret',
    (o) => providers.okta(o as never),
    (secret, id) => kit.okta({ secret }).batch([{ uuid: id, eventType: 'user.session.start' }]),
  ),
  microsoftGraph: strings(
    'clientState',
    (o) => providers.microsoftGraph(o as never),
    (clientState, id) =>
      kit
        .microsoftGraph({ clientState })
        .batch([
          { subscriptionId: 's1', changeType: 'updated', resource: `Users/u1/Messages/${id}` },
        ]),
  ),
  azureEventGrid: strings(
    'secret',
    (o) => providers.azureEventGrid(o as never),
    (secret, id) =>
      kit.azureEventGrid({ secret }).batch([{ id, eventType: 'Microsoft.Storage.BlobCreated' }]),
  ),
  googleCalendar: strings(
    'token',
    (o) => providers.googleCalendar(o as never),
    (token, id) => kit.googleCalendar({ token, channelId: id }).event({ messageNumber: 2 }),
  ),
  // Timestamped HMACs.
  workos: strings(
    'secret',
    (o) => providers.workos({ ...o, clock } as never),
    (secret, id) => kit.workos({ secret, clock }).event({ id, event: 'user.created', data: {} }),
  ),
  elevenlabs: strings(
    'secret',
    (o) => providers.elevenlabs({ ...o, clock } as never),
    (secret, id) =>
      kit
        .elevenlabs({ secret, clock })
        .event({ type: 'post_call_transcription', data: { conversation_id: id } }),
  ),
  sanity: strings(
    'secret',
    (o) => providers.sanity({ ...o, clock } as never),
    (secret, id) => kit.sanity({ secret, clock }).event({ _id: 'doc' }, { transaction: id }),
  ),
  mux: strings(
    'secret',
    (o) => providers.mux({ ...o, clock } as never),
    (secret, id) => kit.mux({ secret, clock }).event({ id, type: 'video.asset.ready', data: {} }),
  ),
  webflow: strings(
    'secret',
    (o) => providers.webflow({ ...o, clock } as never),
    (secret, id) =>
      kit.webflow({ secret, clock }).event({ triggerType: 'form_submission', payload: { id } }),
  ),
  revolut: strings(
    'signingSecret',
    (o) => providers.revolut({ ...o, clock } as never),
    (signingSecret, id) =>
      kit.revolut({ signingSecret, clock }).event({ event: 'ORDER_COMPLETED', order_id: id }),
  ),
  persona: strings(
    'secret',
    (o) => providers.persona({ ...o, clock } as never),
    (secret, id) =>
      kit
        .persona({ secret, clock })
        .event({ data: { id, attributes: { name: 'inquiry.completed' } } }),
  ),
  recurly: strings(
    'secret',
    (o) => providers.recurly({ ...o, clock } as never),
    (secret, id) =>
      kit
        .recurly({ secret, clock })
        .event({ id, object_type: 'subscription', event_type: 'created' }),
  ),
  // Field signatures and plain hashes.
  cloudinary: strings(
    'apiSecret',
    (o) => providers.cloudinary({ ...o, clock } as never),
    (apiSecret, id) =>
      kit.cloudinary({ apiSecret, clock }).event({ notification_type: 'upload', public_id: id }),
  ),
  dropboxSign: strings(
    'apiKey',
    (o) => providers.dropboxSign(o as never),
    (apiKey, id) =>
      kit
        .dropboxSign({ apiKey, clock })
        .event('signature_request_signed', { signature_request: { signature_request_id: id } }),
  ),
  tbank: strings(
    'password',
    (o) => providers.tbank(o as never),
    (password, id) =>
      kit
        .tbank({ password })
        .event({ TerminalKey: 'T1', PaymentId: id, Status: 'CONFIRMED', Amount: 100 }),
  ),
  robokassa: strings(
    'password2',
    (o) => providers.robokassa(o as never),
    (password2, id) => kit.robokassa({ password2 }).event({ OutSum: '10.00', InvId: id }),
  ),
  mandrill: strings(
    'webhookKey',
    (o) => providers.mandrill({ ...o, webhookUrl: MANDRILL_URL } as never),
    (webhookKey, id) =>
      kit.mandrill({ webhookKey, url: MANDRILL_URL }).batch([{ _id: id, event: 'send' }]),
  ),
  pagerduty: strings(
    'secret',
    (o) => providers.pagerduty(o as never),
    (secret, id) =>
      kit.pagerduty({ secret }).event({ event: { id, event_type: 'incident.triggered' } }),
  ),
};
