/**
 * @module One genuine delivery per provider preset, signed the way that provider signs, with a
 * forged copy: what the preset cases send through every adapter. The signers here follow each
 * provider's documented scheme; the presets' own tests check the same schemes against the
 * providers' SDKs.
 */
import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import { laterPresetFixtures } from './presets-later';
import type { PresetFixture, PresetRequest } from './preset-fixture';

export type { PresetFixture, PresetRequest } from './preset-fixture';

const now = () => Math.floor(Date.now() / 1000);
const hex = (algorithm: string, key: string | Buffer, data: string) =>
  createHmac(algorithm, key).update(data).digest('hex');
const base64 = (key: string | Buffer, data: string) =>
  createHmac('sha256', key).update(data).digest('base64');

const STRIPE_SECRET = 'whsec_conformance_stripe';
const stripeEvent = JSON.stringify({ id: 'evt_1Pconformance', type: 'payment_intent.succeeded' });
const stripeSigned = (secret: string): PresetRequest => {
  const t = now();
  return {
    body: stripeEvent,
    headers: { 'stripe-signature': `t=${t},v1=${hex('sha256', secret, `${t}.${stripeEvent}`)}` },
  };
};

const GITHUB_SECRET = 'conformance github secret';
const githubPush = JSON.stringify({ ref: 'refs/heads/main', commits: [{ id: 'c1' }] });
const githubSigned = (secret: string): PresetRequest => ({
  body: githubPush,
  headers: {
    'x-github-event': 'push',
    'x-github-delivery': '7d0a3a6e-0000-11ef-8e0e-conformance',
    'x-hub-signature-256': `sha256=${hex('sha256', secret, githubPush)}`,
  },
});

const SHOPIFY_SECRET = 'conformance shopify secret';
const shopifyOrder = JSON.stringify({ id: 820982911946154500, total_price: '10.00' });
const shopifySigned = (secret: string): PresetRequest => ({
  body: shopifyOrder,
  headers: {
    'x-shopify-shop-domain': 'conformance.myshopify.com',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-conformance',
    'x-shopify-topic': 'orders/create',
    'x-shopify-hmac-sha256': base64(secret, shopifyOrder),
  },
});

const SLACK_SECRET = 'conformance slack signing secret';
const slackEvent = JSON.stringify({
  type: 'event_callback',
  api_app_id: 'A0CONFORM',
  event_id: 'Ev0CONFORM',
  event: { type: 'app_mention', text: 'hi' },
});
const slackSigned = (secret: string): PresetRequest => {
  const t = now();
  return {
    body: slackEvent,
    headers: {
      'x-slack-request-timestamp': String(t),
      'x-slack-signature': `v0=${hex('sha256', secret, `v0:${t}:${slackEvent}`)}`,
    },
  };
};

const PADDLE_SECRET = 'pdl_ntfset_conformance';
const paddleEvent = JSON.stringify({
  event_id: 'evt_01conformance',
  event_type: 'transaction.paid',
});
const paddleSigned = (secret: string): PresetRequest => {
  const t = now();
  return {
    body: paddleEvent,
    headers: { 'paddle-signature': `ts=${t};h1=${hex('sha256', secret, `${t}:${paddleEvent}`)}` },
  };
};

const telegramUpdate = JSON.stringify({ update_id: 918273645, message: { text: '/start' } });
const telegramSent = (token: string): PresetRequest => ({
  body: telegramUpdate,
  headers: { 'x-telegram-bot-api-secret-token': token },
});

/** Svix / Standard Webhooks: base64 HMAC-SHA256 under the decoded `whsec_` secret. */
const WHSEC = `whsec_${Buffer.from('conformance-svix-secret-32-bytes').toString('base64')}`;
const OTHER_WHSEC = `whsec_${Buffer.from('another-svix-secret-of-32-bytes!').toString('base64')}`;
const svixEvent = JSON.stringify({ type: 'user.created', data: { id: 'user_conformance' } });
const svixSigned = (secret: string, prefix: 'svix' | 'webhook'): PresetRequest => {
  const t = now();
  const id = 'msg_conformance1';
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return {
    body: svixEvent,
    headers: {
      [`${prefix}-id`]: id,
      [`${prefix}-timestamp`]: String(t),
      [`${prefix}-signature`]: `v1,${base64(key, `${id}.${t}.${svixEvent}`)}`,
    },
  };
};

const RAZORPAY_SECRET = 'conformance razorpay secret';
const razorpayEvent = JSON.stringify({ entity: 'event', event: 'payment.captured' });
const razorpaySigned = (secret: string): PresetRequest => ({
  body: razorpayEvent,
  headers: {
    'x-razorpay-event-id': 'HconformanceEv',
    'x-razorpay-signature': hex('sha256', secret, razorpayEvent),
  },
});

const discordKeys = generateKeyPairSync('ed25519');
const discordOther = generateKeyPairSync('ed25519').privateKey;
const DISCORD_PUBLIC_KEY = discordKeys.publicKey
  .export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('hex');
const discordCommand = JSON.stringify({
  id: '1247856129870041118',
  type: 2,
  data: { name: 'pay' },
});
const discordPing = JSON.stringify({ id: '1247856129870049999', type: 1 });
const discordSigned = (body: string, key = discordKeys.privateKey): PresetRequest => {
  const t = String(now());
  return {
    body,
    headers: {
      'x-signature-timestamp': t,
      'x-signature-ed25519': ed25519Sign(null, Buffer.from(t + body), key).toString('hex'),
    },
  };
};

const TWITCH_SECRET = 'conformance-twitch-secret';
const twitchFollow = JSON.stringify({
  subscription: { type: 'channel.follow' },
  event: { user_id: '1' },
});
const twitchChallenge = JSON.stringify({ challenge: 'conformance-challenge', subscription: {} });
const twitchSigned = (body: string, type: string, secret = TWITCH_SECRET): PresetRequest => {
  const id = type === 'notification' ? 'twitch-msg-conformance' : 'twitch-msg-challenge';
  const stamp = new Date().toISOString();
  return {
    body,
    headers: {
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': stamp,
      'twitch-eventsub-message-type': type,
      'twitch-eventsub-message-signature': `sha256=${hex('sha256', secret, id + stamp + body)}`,
    },
  };
};

const gitlabPush = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main' });
const gitlabSent = (token: string): PresetRequest => ({
  body: gitlabPush,
  headers: { 'idempotency-key': 'gitlab-idem-conformance', 'x-gitlab-token': token },
});

const SQUARE_KEY = 'conformance square key';
const SQUARE_URL = 'https://shop.example.com/webhooks/square';
const squareEvent = JSON.stringify({ type: 'payment.updated', event_id: 'sq-evt-conformance' });
const squareSigned = (key: string): PresetRequest => ({
  body: squareEvent,
  headers: { 'x-square-hmacsha256-signature': base64(key, SQUARE_URL + squareEvent) },
});

const typeformEvent = JSON.stringify({
  event_id: 'tf-evt-conformance',
  event_type: 'form_response',
});
const typeformSigned = (secret: string): PresetRequest => ({
  body: typeformEvent,
  headers: { 'typeform-signature': `sha256=${base64(secret, typeformEvent)}` },
});

const bodySigned = (algorithm: string, header: string, id: string) => (secret: string) => {
  const body = JSON.stringify({ id, type: 'payment_approved' });
  return { body, headers: { [header]: hex(algorithm, secret, body) } } as PresetRequest;
};
const checkoutSigned = bodySigned('sha256', 'cko-signature', 'evt_conformance_cko');
const vercelSigned = bodySigned('sha1', 'x-vercel-signature', 'vercel-evt-conformance');
const intercomSigned = (secret: string): PresetRequest => {
  const body = JSON.stringify({ type: 'notification_event', id: 'notif_conformance' });
  return { body, headers: { 'x-hub-signature': `sha1=${hex('sha1', secret, body)}` } };
};

const HMAC_SECRET = 'conformance generic secret';
const hmacEvent = JSON.stringify({ id: 'acme_evt_1', kind: 'order.paid' });
const hmacSigned = (secret: string): PresetRequest => ({
  body: hmacEvent,
  headers: {
    'x-acme-delivery': 'acme-d-1',
    'x-acme-signature': `sha512=${hex('sha512', secret, hmacEvent)}`,
  },
});

/** Every preset the suite drives through each adapter. */
export const presetFixtures: readonly PresetFixture[] = [
  {
    name: 'stripe',
    preset: () => providers.stripe({ secret: STRIPE_SECRET }),
    externalId: 'evt_1Pconformance',
    delivery: () => stripeSigned(STRIPE_SECRET),
    forged: () => stripeSigned('whsec_forger'),
  },
  {
    name: 'github',
    preset: () => providers.github({ secret: GITHUB_SECRET }),
    externalId: '7d0a3a6e-0000-11ef-8e0e-conformance',
    delivery: () => githubSigned(GITHUB_SECRET),
    forged: () => githubSigned('forger'),
  },
  {
    name: 'shopify',
    preset: () => providers.shopify({ secret: SHOPIFY_SECRET }),
    externalId: 'conformance.myshopify.com:b54557e4-bdd9-4b37-8a5f-conformance',
    delivery: () => shopifySigned(SHOPIFY_SECRET),
    forged: () => shopifySigned('forger'),
  },
  {
    name: 'slack',
    preset: () => providers.slack({ signingSecret: SLACK_SECRET }),
    externalId: 'A0CONFORM:Ev0CONFORM',
    delivery: () => slackSigned(SLACK_SECRET),
    forged: () => slackSigned('forger'),
  },
  {
    name: 'paddle',
    preset: () => providers.paddle({ secret: PADDLE_SECRET }),
    externalId: 'evt_01conformance',
    delivery: () => paddleSigned(PADDLE_SECRET),
    forged: () => paddleSigned('pdl_forger'),
  },
  {
    name: 'telegram',
    preset: () => providers.telegram({ botId: 7001, secretToken: 'conformance-token' }),
    externalId: '7001:918273645',
    delivery: () => telegramSent('conformance-token'),
    forged: () => telegramSent('forged-token'),
  },
  {
    name: 'standardWebhooks',
    preset: () => providers.standardWebhooks({ secret: WHSEC }),
    externalId: 'msg_conformance1',
    delivery: () => svixSigned(WHSEC, 'webhook'),
    forged: () => svixSigned(OTHER_WHSEC, 'webhook'),
  },
  {
    name: 'clerk',
    preset: () => providers.clerk({ secret: WHSEC }),
    externalId: 'msg_conformance1',
    delivery: () => svixSigned(WHSEC, 'svix'),
    forged: () => svixSigned(OTHER_WHSEC, 'svix'),
  },
  {
    name: 'resend',
    preset: () => providers.resend({ secret: WHSEC }),
    externalId: 'msg_conformance1',
    delivery: () => svixSigned(WHSEC, 'svix'),
    forged: () => svixSigned(OTHER_WHSEC, 'svix'),
  },
  {
    name: 'razorpay',
    preset: () => providers.razorpay({ secret: RAZORPAY_SECRET }),
    externalId: 'HconformanceEv',
    delivery: () => razorpaySigned(RAZORPAY_SECRET),
    forged: () => razorpaySigned('forger'),
  },
  {
    name: 'discord',
    preset: () => providers.discord({ publicKey: DISCORD_PUBLIC_KEY }),
    externalId: '1247856129870041118',
    delivery: () => discordSigned(discordCommand),
    forged: () => discordSigned(discordCommand, discordOther),
    handshake: {
      request: () => discordSigned(discordPing),
      forged: () => discordSigned(discordPing, discordOther),
      answer: '{"type":1}',
      externalId: '1247856129870049999',
      // The PONG as the body, under the PING's own signature headers.
      replay: (answer) => ({ body: answer, headers: discordSigned(discordPing).headers }),
    },
  },
  {
    name: 'twitch',
    preset: () => providers.twitch({ secret: TWITCH_SECRET }),
    externalId: 'twitch-msg-conformance',
    delivery: () => twitchSigned(twitchFollow, 'notification'),
    forged: () => twitchSigned(twitchFollow, 'notification', 'forger-secret-0'),
    handshake: {
      request: () => twitchSigned(twitchChallenge, 'webhook_callback_verification'),
      forged: () =>
        twitchSigned(twitchChallenge, 'webhook_callback_verification', 'forger-secret-0'),
      answer: 'conformance-challenge',
      externalId: 'twitch-msg-challenge',
      // The echoed challenge as a notification's signature.
      replay: (answer) => {
        const notification = twitchSigned(twitchFollow, 'notification');
        const signature = { 'twitch-eventsub-message-signature': `sha256=${answer}` };
        return { body: notification.body, headers: { ...notification.headers, ...signature } };
      },
    },
  },
  {
    name: 'gitlab',
    preset: () => providers.gitlab({ secretToken: 'conformance-gitlab-token' }),
    externalId: 'gitlab-idem-conformance',
    delivery: () => gitlabSent('conformance-gitlab-token'),
    forged: () => gitlabSent('forged-token'),
  },
  {
    name: 'square',
    preset: () => providers.square({ signatureKey: SQUARE_KEY, notificationUrl: SQUARE_URL }),
    externalId: 'sq-evt-conformance',
    delivery: () => squareSigned(SQUARE_KEY),
    forged: () => squareSigned('forger'),
  },
  {
    name: 'typeform',
    preset: () => providers.typeform({ secret: 'conformance typeform secret' }),
    externalId: 'tf-evt-conformance',
    delivery: () => typeformSigned('conformance typeform secret'),
    forged: () => typeformSigned('forger'),
  },
  {
    name: 'checkout',
    preset: () => providers.checkout({ secret: 'conformance cko key' }),
    externalId: 'evt_conformance_cko',
    delivery: () => checkoutSigned('conformance cko key'),
    forged: () => checkoutSigned('forger'),
  },
  {
    name: 'vercel',
    preset: () => providers.vercel({ secret: 'conformance vercel secret' }),
    externalId: 'vercel-evt-conformance',
    delivery: () => vercelSigned('conformance vercel secret'),
    forged: () => vercelSigned('forger'),
  },
  {
    name: 'intercom',
    preset: () => providers.intercom({ secret: 'conformance intercom secret' }),
    externalId: 'notif_conformance',
    delivery: () => intercomSigned('conformance intercom secret'),
    forged: () => intercomSigned('forger'),
  },
  {
    name: 'hmac (a configured provider)',
    preset: () =>
      providers.hmac({
        provider: 'acme',
        secret: HMAC_SECRET,
        signatureHeader: 'x-acme-signature',
        algorithm: 'sha512',
        prefix: 'sha512=',
        key: 'x-acme-delivery',
        retentionDays: 3,
      }),
    externalId: 'acme-d-1',
    delivery: () => hmacSigned(HMAC_SECRET),
    forged: () => hmacSigned('forger'),
  },
  ...laterPresetFixtures,
];
