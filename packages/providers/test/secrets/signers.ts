/**
 * Every preset with two secrets of its own kind, and a delivery each signs as its provider does
 * (the formulas the preset's own test judges against its provider's SDK or documented example).
 * `build(secrets)` makes the preset from a list of secrets; `sign(secret)` a delivery under one.
 */
import {
  createHash,
  createHmac,
  generateKeyPairSync,
  sign as signWith,
  type KeyObject,
} from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { TypedPreset } from '@webhook-idempotency/providers';
import { crc32 } from '../../src/crc32';
import { SIGNER, SIGNER_KEY } from '../fixtures/paypal-certificates';
import { basic, formRequest, jsonRequest } from '../helpers';

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
const hmacOf = (algorithm: string, key: string | Buffer, text: string | Buffer) =>
  createHmac(algorithm, key).update(text).digest();
const hex = (key: string | Buffer, text: string | Buffer, algorithm = 'sha256') =>
  hmacOf(algorithm, key, text).toString('hex');
const b64 = (key: string | Buffer, text: string | Buffer, algorithm = 'sha256') =>
  hmacOf(algorithm, key, text).toString('base64');

/** The preset options for a list of secrets under `option`, or a resolver. */
function secretOption<S>(option: string, given: Parameters<Signer<S>['build']>[0]) {
  return 'fixed' in given ? { [option]: given.fixed } : { resolveSecret: given.resolveSecret };
}

/** A signer whose preset takes strings under `option`, built by `make` with the rest of its options. */
function strings(
  option: string,
  make: (options: Record<string, unknown>) => TypedPreset,
  sign: (secret: string, id: string) => HttpRequest,
  secrets: readonly [string, string, string] = [
    'old-secret-0001',
    'new-secret-0002',
    'not-ours-0003',
  ],
): Signer<string> {
  return {
    secrets,
    build: (given) => make(secretOption(option, given)),
    sign: (s, id = 'e1') => sign(s, id),
  };
}

const whsec = (text: string) => `whsec_${Buffer.from(text).toString('base64')}`;
const svix = (name: 'webhook' | 'svix') => (secret: string, id: string) => {
  const body = JSON.stringify({ type: 'user.created', data: {} });
  const key = Buffer.from(secret.slice(6), 'base64');
  return jsonRequest(body, {
    headers: {
      [`${name}-id`]: id,
      [`${name}-timestamp`]: String(NOW),
      [`${name}-signature`]: `v1,${b64(key, `${id}.${NOW}.${body}`)}`,
    },
  });
};
const svixSecrets = [
  whsec('old-key-bytes'),
  whsec('new-key-bytes'),
  whsec('not-our-bytes'),
] as const;

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
const three = <T>(make: (pair: (typeof ed)[number]) => T, pairs: typeof ed) =>
  [make(pairs[0]), make(pairs[1]), make(pairs[2])] as const;

const SQUARE_URL = 'https://shop.example.com/webhooks/square';
const HUBSPOT_URL = 'https://app.example.com/webhooks/hubspot';
const BT_XML = (id: string) =>
  `<notification><kind>check</kind><timestamp>2026-01-01T00:00:00Z</timestamp><subject><id>${id}</id></subject></notification>`;

/** Every preset of the package, by factory name. */
export const SIGNERS: Record<string, Signer<any>> = {
  stripe: strings(
    'secret',
    (o) => providers.stripe({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({ id, type: 'payment_intent.succeeded' });
      return jsonRequest(body, {
        headers: { 'stripe-signature': `t=${NOW},v1=${hex(s, `${NOW}.${body}`)}` },
      });
    },
  ),
  github: strings(
    'secret',
    (o) => providers.github(o as never),
    (s, id) => {
      const body = '{"zen":"hi"}';
      return jsonRequest(body, {
        headers: {
          'x-github-delivery': id,
          'x-github-event': 'ping',
          'x-hub-signature-256': `sha256=${hex(s, body)}`,
        },
      });
    },
  ),
  shopify: strings(
    'secret',
    (o) => providers.shopify(o as never),
    (s, id) => {
      const body = '{"id":1}';
      return jsonRequest(body, {
        headers: {
          'x-shopify-shop-domain': 'a.myshopify.com',
          'x-shopify-webhook-id': id,
          'x-shopify-hmac-sha256': b64(s, body),
        },
      });
    },
  ),
  standardWebhooks: {
    ...strings(
      'secret',
      (o) => providers.standardWebhooks({ ...o, clock } as never),
      svix('webhook'),
    ),
    secrets: svixSecrets,
  },
  clerk: {
    ...strings('secret', (o) => providers.clerk({ ...o, clock } as never), svix('svix')),
    secrets: svixSecrets,
  },
  resend: {
    ...strings('secret', (o) => providers.resend({ ...o, clock } as never), svix('svix')),
    secrets: svixSecrets,
  },
  slack: strings(
    'signingSecret',
    (o) => providers.slack({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({
        type: 'event_callback',
        api_app_id: 'A1',
        event_id: id,
        event: { type: 'app_mention' },
      });
      return jsonRequest(body, {
        headers: {
          'x-slack-request-timestamp': String(NOW),
          'x-slack-signature': `v0=${hex(s, `v0:${NOW}:${body}`)}`,
        },
      });
    },
  ),
  paddle: strings(
    'secret',
    (o) => providers.paddle({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({ event_id: id, event_type: 'transaction.completed' });
      return jsonRequest(body, {
        headers: { 'paddle-signature': `ts=${NOW};h1=${hex(s, `${NOW}:${body}`)}` },
      });
    },
  ),
  razorpay: strings(
    'secret',
    (o) => providers.razorpay(o as never),
    (s, id) => {
      const body = '{"event":"payment.captured"}';
      return jsonRequest(body, {
        headers: { 'x-razorpay-event-id': id, 'x-razorpay-signature': hex(s, body) },
      });
    },
  ),
  discord: {
    secrets: three((pair) => publicText(pair.publicKey, 'hex'), ed),
    build: (given) => providers.discord({ ...secretOption('publicKey', given), clock } as never),
    sign(key: string, id = 'e1') {
      const body = JSON.stringify({ id, type: 2 });
      const signature = signWith(null, Buffer.from(`${NOW}${body}`), privateOf(ed, key)).toString(
        'hex',
      );
      return jsonRequest(body, {
        headers: { 'x-signature-ed25519': signature, 'x-signature-timestamp': String(NOW) },
      });
    },
  },
  hmac: strings(
    'secret',
    (o) =>
      providers.hmac({
        ...o,
        provider: 'acme',
        signatureHeader: 'x-acme-signature',
        key: 'x-acme-delivery',
        retentionDays: 7,
      } as never),
    (s, id) =>
      jsonRequest('{"a":1}', {
        headers: { 'x-acme-delivery': id, 'x-acme-signature': hex(s, '{"a":1}') },
      }),
  ),
  twitch: strings(
    'secret',
    (o) => providers.twitch({ ...o, clock } as never),
    (s, id) => {
      const body = '{"subscription":{"type":"channel.follow"},"event":{}}';
      const stamp = new Date(NOW * 1000).toISOString();
      return jsonRequest(body, {
        headers: {
          'twitch-eventsub-message-id': id,
          'twitch-eventsub-message-timestamp': stamp,
          'twitch-eventsub-message-type': 'notification',
          'twitch-eventsub-message-signature': `sha256=${hex(s, `${id}${stamp}${body}`)}`,
        },
      });
    },
  ),
  gitlab: strings(
    'secretToken',
    (o) => providers.gitlab(o as never),
    (s, id) =>
      jsonRequest('{"object_kind":"push"}', {
        headers: { 'x-gitlab-token': s, 'idempotency-key': id },
      }),
  ),
  square: strings(
    'signatureKey',
    (o) => providers.square({ ...o, notificationUrl: SQUARE_URL } as never),
    (s, id) => {
      const body = JSON.stringify({ event_id: id, type: 'payment.created' });
      return jsonRequest(body, {
        headers: { 'x-square-hmacsha256-signature': b64(s, `${SQUARE_URL}${body}`) },
      });
    },
  ),
  typeform: strings(
    'secret',
    (o) => providers.typeform(o as never),
    (s, id) => {
      const body = JSON.stringify({ event_id: id, event_type: 'form_response' });
      return jsonRequest(body, { headers: { 'typeform-signature': `sha256=${b64(s, body)}` } });
    },
  ),
  checkout: strings(
    'secret',
    (o) => providers.checkout(o as never),
    (s, id) => {
      const body = JSON.stringify({ id, type: 'payment_approved' });
      return jsonRequest(body, { headers: { 'cko-signature': hex(s, body) } });
    },
  ),
  vercel: strings(
    'secret',
    (o) => providers.vercel(o as never),
    (s, id) => {
      const body = JSON.stringify({ id, type: 'deployment.created' });
      return jsonRequest(body, { headers: { 'x-vercel-signature': hex(s, body, 'sha1') } });
    },
  ),
  intercom: strings(
    'secret',
    (o) => providers.intercom(o as never),
    (s, id) => {
      const body = JSON.stringify({ id, topic: 'ping' });
      return jsonRequest(body, { headers: { 'x-hub-signature': `sha1=${hex(s, body, 'sha1')}` } });
    },
  ),
  wise: {
    secrets: three((pair) => publicText(pair.publicKey, 'pem'), rsa),
    build: (given) => providers.wise(secretOption('publicKey', given) as never),
    sign(key: string, id = 'e1') {
      const body = '{"event_type":"transfers#state-change","data":{}}';
      const signature = signWith('sha256', Buffer.from(body), privateOf(rsa, key)).toString(
        'base64',
      );
      return jsonRequest(body, {
        headers: { 'x-delivery-id': id, 'x-signature-sha256': signature },
      });
    },
  },
  paypal: strings(
    'webhookId',
    (o) =>
      providers.paypal({
        ...o,
        fetchCertificate: async () => SIGNER,
        clock: () => Date.parse('2030-01-01T00:00:00Z'),
      } as never),
    (webhookId, id) => {
      const body = JSON.stringify({ id, event_type: 'PAYMENT.CAPTURE.COMPLETED' });
      const message = `t-1|2026-12-01T10:00:01Z|${webhookId}|${crc32(Buffer.from(body))}`;
      return jsonRequest(body, {
        headers: {
          'paypal-transmission-id': 't-1',
          'paypal-transmission-time': '2026-12-01T10:00:01Z',
          'paypal-transmission-sig': signWith('sha256', Buffer.from(message), SIGNER_KEY).toString(
            'base64',
          ),
          'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1',
          'paypal-auth-algo': 'SHA256withRSA',
        },
      });
    },
  ),
  coinbase: strings(
    'secret',
    (o) => providers.coinbase(o as never),
    (s, id) => {
      const body = JSON.stringify({ id: 'd1', event: { id, type: 'charge:confirmed' } });
      return jsonRequest(body, { headers: { 'x-cc-webhook-signature': hex(s, body) } });
    },
  ),
  lemonsqueezy: strings(
    'secret',
    (o) => providers.lemonsqueezy(o as never),
    (s, id) => {
      const body = JSON.stringify({
        meta: { event_name: 'order_created' },
        data: { type: 'orders', id },
      });
      return jsonRequest(body, { headers: { 'x-signature': hex(s, body) } });
    },
  ),
  airwallex: strings(
    'secret',
    (o) => providers.airwallex({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({ id, name: 'payment_intent.succeeded' });
      const stamp = String(NOW * 1000);
      return jsonRequest(body, {
        headers: { 'x-timestamp': stamp, 'x-signature': hex(s, `${stamp}${body}`) },
      });
    },
  ),
  paystack: strings(
    'secretKey',
    (o) => providers.paystack(o as never),
    (s, id) => {
      const body = JSON.stringify({ event: 'charge.success', data: { id } });
      return jsonRequest(body, { headers: { 'x-paystack-signature': hex(s, body, 'sha512') } });
    },
  ),
  calendly: strings(
    'signingKey',
    (o) => providers.calendly({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({
        event: 'invitee.created',
        payload: { uri: `https://api.calendly.com/${id}` },
      });
      return jsonRequest(body, {
        headers: { 'calendly-webhook-signature': `t=${NOW},v1=${hex(s, `${NOW}.${body}`)}` },
      });
    },
  ),
  sentry: strings(
    'clientSecret',
    (o) => providers.sentry(o as never),
    (s, id) =>
      jsonRequest('{"action":"created"}', {
        headers: { 'request-id': id, 'sentry-hook-signature': hex(s, '{"action":"created"}') },
      }),
  ),
  bitbucket: strings(
    'secret',
    (o) => providers.bitbucket(o as never),
    (s, id) =>
      jsonRequest('{"push":{}}', {
        headers: { 'x-request-uuid': id, 'x-hub-signature': `sha256=${hex(s, '{"push":{}}')}` },
      }),
  ),
  postmark: {
    secrets: [
      { username: 'hook', password: 'old-pass' },
      { username: 'hook', password: 'new-pass' },
      { username: 'hook', password: 'not-ours' },
    ],
    build: (given) => providers.postmark(secretOption('credentials', given) as never),
    sign: (pair: { username: string; password: string }, id = 'e1') =>
      jsonRequest(
        { RecordType: 'Bounce', ID: id },
        { headers: { authorization: basic(pair.username, pair.password) } },
      ),
  },
  twilio: strings(
    'authToken',
    (o) => providers.twilio({ ...o, baseUrl: 'https://example.com' } as never),
    (s, id) => {
      const fields = { Body: 'hi', MessageSid: `SM${'0'.repeat(32)}` };
      const signed = `https://example.com/sms${Object.entries(fields)
        .map(([k, v]) => k + v)
        .join('')}`;
      return formRequest(fields, {
        url: '/sms',
        headers: { 'i-twilio-idempotency-token': id, 'x-twilio-signature': b64(s, signed, 'sha1') },
      });
    },
  ),
  linear: strings(
    'secret',
    (o) => providers.linear({ ...o, clock } as never),
    (s, id) => {
      const body = JSON.stringify({
        type: 'Issue',
        action: 'create',
        webhookTimestamp: NOW * 1000,
      });
      return jsonRequest(body, {
        headers: { 'linear-delivery': id, 'linear-signature': hex(s, body) },
      });
    },
  ),
  mercadopago: strings(
    'secret',
    (o) => providers.mercadopago(o as never),
    (s, id) =>
      jsonRequest('{"type":"payment"}', {
        url: '/mp?data.id=123',
        headers: {
          'x-request-id': id,
          'x-signature': `ts=${NOW},v1=${hex(s, `id:123;request-id:${id};ts:${NOW};`)}`,
        },
      }),
  ),
  zoom: strings(
    'secretToken',
    (o) => providers.zoom(o as never),
    (s, id) => {
      const body = JSON.stringify({ event: 'meeting.started', event_ts: NOW, payload: { id } });
      return jsonRequest(body, {
        headers: {
          'x-zm-request-timestamp': String(NOW),
          'x-zm-signature': `v0=${hex(s, `v0:${NOW}:${body}`)}`,
        },
      });
    },
  ),
  braintree: {
    secrets: [
      { publicKey: 'pub_old', privateKey: 'priv-old' },
      { publicKey: 'pub_new', privateKey: 'priv-new' },
      { publicKey: 'pub_old', privateKey: 'priv-forged' },
    ],
    build: (given) => providers.braintree(secretOption('keys', given) as never),
    sign(pair: { publicKey: string; privateKey: string }, id = 'e1') {
      const payload = Buffer.from(BT_XML(id)).toString('base64');
      const key = createHash('sha1').update(pair.privateKey, 'latin1').digest();
      return formRequest({
        bt_payload: payload,
        bt_signature: `${pair.publicKey}|${hex(key, payload, 'sha1')}`,
      });
    },
  },
  mailgun: strings(
    'signingKey',
    (o) => providers.mailgun(o as never),
    (s, id) =>
      jsonRequest({
        signature: { timestamp: String(NOW), token: 'tok123', signature: hex(s, `${NOW}tok123`) },
        'event-data': { id, event: 'delivered' },
      }),
  ),
  sendgrid: {
    secrets: three((pair) => publicText(pair.publicKey, 'der'), ec),
    build: (given) => providers.sendgrid({ ...secretOption('publicKey', given), clock } as never),
    sign(key: string, id = 'e1') {
      const body = JSON.stringify([{ sg_event_id: id, event: 'delivered' }]);
      const signature = signWith('sha256', Buffer.from(`${NOW}${body}`), {
        key: privateOf(ec, key),
        dsaEncoding: 'der',
      });
      return jsonRequest(body, {
        headers: {
          'x-twilio-email-event-webhook-signature': signature.toString('base64'),
          'x-twilio-email-event-webhook-timestamp': String(NOW),
        },
      });
    },
  },
  hubspot: strings(
    'clientSecret',
    (o) => providers.hubspot({ ...o, targetUrl: HUBSPOT_URL, clock } as never),
    (s, id) => {
      const body = JSON.stringify([
        { portalId: 1, subscriptionId: 2, eventId: id, subscriptionType: 'contact.creation' },
      ]);
      const stamp = String(NOW * 1000);
      return jsonRequest(body, {
        headers: {
          'x-hubspot-request-timestamp': stamp,
          'x-hubspot-signature-v3': b64(s, `POST${HUBSPOT_URL}${body}${stamp}`),
        },
      });
    },
  ),
  adyen: {
    secrets: ['0a1b2c3d4e5f', 'a0b1c2d3e4f5', 'ffeeddccbbaa'],
    build: (given) => providers.adyen(secretOption('hmacKey', given) as never),
    sign(keyHex: string, id = 'e1') {
      const item = {
        pspReference: id,
        merchantAccountCode: 'M',
        merchantReference: 'r',
        amount: { value: 100, currency: 'EUR' },
        eventCode: 'AUTHORISATION',
        success: 'true',
      };
      const signature = b64(Buffer.from(keyHex, 'hex'), `${id}::M:r:100:EUR:AUTHORISATION:true`);
      return jsonRequest({
        notificationItems: [
          { NotificationRequestItem: { ...item, additionalData: { hmacSignature: signature } } },
        ],
      });
    },
  },
  meta: strings(
    'appSecret',
    (o) => providers.meta(o as never),
    (s, id) => {
      const body = JSON.stringify({
        object: 'page',
        entry: [{ id: '1', time: 1, messaging: [{ message: { mid: id } }] }],
      });
      return jsonRequest(body, { headers: { 'x-hub-signature-256': `sha256=${hex(s, body)}` } });
    },
  ),
  payme: strings(
    'password',
    (o) => providers.payme(o as never),
    (s, id) =>
      jsonRequest(
        { method: 'CreateTransaction', params: { id }, id: 1 },
        { headers: { authorization: basic('Paycom', s) } },
      ),
  ),
  click: strings(
    'secretKey',
    (o) => providers.click(o as never),
    (s, id) => {
      const fields = {
        click_trans_id: id,
        service_id: '2',
        click_paydoc_id: '3',
        merchant_trans_id: '4',
        amount: '1000',
        action: '0',
        error: '0',
        sign_time: '2026-01-01 00:00:00',
      };
      const md5 = createHash('md5').update(`${id}2${s}410000${fields.sign_time}`).digest('hex');
      return formRequest({ ...fields, sign_string: md5 });
    },
    ['old-key', 'new-key', 'not-ours'],
  ),
  uzum: {
    secrets: [
      { username: 'uzum', password: 'old-pass' },
      { username: 'uzum', password: 'new-pass' },
      { username: 'uzum', password: 'not-ours' },
    ],
    build: (given) => providers.uzum(secretOption('credentials', given) as never),
    sign: (pair: { username: string; password: string }, id = 'e1') =>
      jsonRequest(
        { serviceId: 1, transId: id },
        { url: '/uzum/create', headers: { authorization: basic(pair.username, pair.password) } },
      ),
  },
  telegram: strings(
    'secretToken',
    (o) => providers.telegram({ ...o, botId: 1 } as never),
    (s, id) =>
      jsonRequest(
        { update_id: Number(id.replace(/\D/g, '') || '1'), message: {} },
        { headers: { 'x-telegram-bot-api-secret-token': s } },
      ),
    ['old_token_1', 'new_token_2', 'not_ours_3'],
  ),
};
