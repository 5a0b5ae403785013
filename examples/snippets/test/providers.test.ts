/** docs/providers.md: every `preset.key(x); // 'key'` comment is the key the preset really reads. */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryStore, type HttpRequest } from '@webhook-idempotency/core';
import express from 'express';
import request from 'supertest';
import * as snippets from '../src/providers';
import { readRegion } from './helpers/check-docs';
import { commentedKeys as keysIn } from './helpers/commented-keys';

const source = readFileSync(join(__dirname, '..', 'src', 'providers.ts'), 'utf8');

/** The keys the comments of a region of the snippets promise. */
const commentedKeys = (region: string) => keysIn(source, region);

function req(init: { url?: string; headers?: Record<string, string>; body?: string }): HttpRequest {
  const rawBody = init.body === undefined ? undefined : Buffer.from(init.body);
  return {
    method: 'POST',
    url: init.url ?? '/webhook',
    headers: init.headers ?? {},
    rawBody,
    body: undefined,
    native: {},
  };
}
const json = (value: unknown, init: { url?: string; headers?: Record<string, string> } = {}) =>
  req({
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(value),
  });
const form = (fields: Record<string, string>) =>
  req({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

// Set before any describe body runs: the route below builds its preset at collection time.
Object.assign(process.env, {
  PAYME_CASH_DESK_KEY: 'test-cash-desk-key',
  CLICK_SECRET_KEY: 'click-secret',
  UZUM_LOGIN: 'uzum',
  UZUM_PASSWORD: 'uzum-password',
  STRIPE_WEBHOOK_SECRET: 'whsec_test',
  GITHUB_WEBHOOK_SECRET: 'github-secret',
  TELEGRAM_SECRET_TOKEN: 'telegram-secret',
  SHOPIFY_CLIENT_SECRET: 'shopify-secret',
  WEBHOOK_SECRET: `whsec_${Buffer.from('standard-webhooks-secret').toString('base64')}`,
  SLACK_SIGNING_SECRET: 'slack-secret',
  PADDLE_WEBHOOK_SECRET: 'paddle-secret',
  CLERK_WEBHOOK_SIGNING_SECRET: `whsec_${Buffer.from('clerk-secret').toString('base64')}`,
  RESEND_WEBHOOK_SECRET: `whsec_${Buffer.from('resend-secret').toString('base64')}`,
  RAZORPAY_WEBHOOK_SECRET: 'razorpay-secret',
  DISCORD_PUBLIC_KEY: 'a'.repeat(64),
  TWITCH_EVENTSUB_SECRET: 'twitch-secret-of-ours',
  GITLAB_WEBHOOK_TOKEN: 'gitlab-token',
  SQUARE_SIGNATURE_KEY: 'square-key',
  TYPEFORM_WEBHOOK_SECRET: 'typeform-secret',
  CKO_WEBHOOK_SIGNATURE_KEY: 'cko-key',
  VERCEL_WEBHOOK_SECRET: 'vercel-secret',
  INTERCOM_CLIENT_SECRET: 'intercom-secret',
  ACME_WEBHOOK_SECRET: 'acme-secret',
  TWILIO_AUTH_TOKEN: 'twilio-token',
  LINEAR_WEBHOOK_SECRET: 'linear-secret',
  MP_WEBHOOK_SECRET: 'mp-secret',
  ZOOM_WEBHOOK_SECRET_TOKEN: 'zoom-secret',
  BRAINTREE_PUBLIC_KEY: 'braintree-public',
  BRAINTREE_PRIVATE_KEY: 'braintree-private',
  MAILGUN_WEBHOOK_SIGNING_KEY: 'mailgun-key',
  // Signed tokens and public keys.
  TELNYX_PUBLIC_KEY: Buffer.alloc(32, 7).toString('base64'),
  QSTASH_CURRENT_SIGNING_KEY: 'sig_current',
  QSTASH_NEXT_SIGNING_KEY: 'sig_next',
  VONAGE_SIGNATURE_SECRET: 'vonage-secret',
  CLOUDINARY_API_SECRET: 'cloudinary-secret',
  DROPBOX_SIGN_API_KEY: 'dropbox-sign-key',
  TBANK_TERMINAL_PASSWORD: 'tbank-password',
  ROBOKASSA_PASSWORD2: 'robokassa-password-2',
  MANDRILL_WEBHOOK_KEY: 'mandrill-key',
  PAGERDUTY_WEBHOOK_SECRET: 'pagerduty-secret',
  OPENAI_WEBHOOK_SECRET: `whsec_${Buffer.from('openai-secret').toString('base64')}`,
  REPLICATE_WEBHOOK_SECRET: `whsec_${Buffer.from('replicate-secret').toString('base64')}`,
  STYTCH_WEBHOOK_SECRET: `whsec_${Buffer.from('stytch-secret').toString('base64')}`,
  POLAR_WEBHOOK_SECRET: 'polar-secret',
  DODO_PAYMENTS_WEBHOOK_KEY: `whsec_${Buffer.from('dodo-secret').toString('base64')}`,
  SEND_EMAIL_HOOK_SECRET: `v1,whsec_${Buffer.from('hook-secret').toString('base64')}`,
  CHARGEBEE_WEBHOOK_PASSWORD: 'chargebee-password',
  AUTH0_LOG_STREAM_TOKEN: 'Bearer auth0-token',
  OKTA_EVENT_HOOK_SECRET: 'okta-secret',
  GRAPH_CLIENT_STATE: 'graph-state',
  EVENT_GRID_URL_SECRET: 'grid-secret',
  GOOGLE_CHANNEL_TOKEN: 'google-token',
});

const cases: Array<[region: string, run: () => Record<string, unknown>]> = [
  [
    'payme',
    () =>
      snippets.paymeKeys(
        json({
          method: 'CreateTransaction',
          params: { id: '5305e3bab097f420a62ced0b', time: 1, amount: 500000, account: {} },
          id: 7,
        }),
      ),
  ],
  [
    'click',
    () =>
      snippets.clickKeys(
        form({
          click_trans_id: '2263123456',
          service_id: '1',
          merchant_trans_id: 'order-1',
          amount: '1000',
          action: '0',
          error: '0',
          sign_time: '2026-01-01 00:00:00',
        }),
        form({
          click_trans_id: '2263123456',
          service_id: '1',
          merchant_trans_id: 'order-1',
          merchant_prepare_id: '5',
          amount: '1000',
          action: '1',
          error: '0',
          sign_time: '2026-01-01 00:00:00',
        }),
      ),
  ],
  [
    'uzum',
    () =>
      snippets.uzumKeys(
        json(
          { serviceId: 498, transId: '3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11', timestamp: 1 },
          { url: '/uzum/create' },
        ),
      ),
  ],
  [
    'stripe',
    () =>
      snippets.stripeKeys(
        json({ id: 'evt_1PqRsT2eZvKYlo2C0a1b2c3d', type: 'payment_intent.succeeded' }),
      ),
  ],
  [
    'github',
    () =>
      snippets.githubKeys(
        json(
          { action: 'opened' },
          { headers: { 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' } },
        ),
      ),
  ],
  [
    'telegram',
    () => snippets.telegramKeys(json({ update_id: 874512345, message: { text: '/start' } })),
  ],
  [
    'shopify',
    () =>
      snippets.shopifyKeys(
        json(
          { id: 1 },
          {
            headers: {
              'x-shopify-shop-domain': 'example.myshopify.com',
              'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
            },
          },
        ),
      ),
  ],
  [
    'standard-webhooks',
    () =>
      snippets.standardWebhooksKeys(
        json(
          { type: 'email.sent' },
          { headers: { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' } },
        ),
      ),
  ],
  [
    'slack',
    () =>
      snippets.slackKeys(
        json({ type: 'event_callback', api_app_id: 'A0123456789', event_id: 'Ev0ABCDEF12' }),
      ),
  ],
  [
    'paddle',
    () =>
      snippets.paddleKeys(
        json({ event_id: 'evt_01hv8x2acma2gz9ntcb8nbj6yw', event_type: 'transaction.completed' }),
      ),
  ],
  [
    'clerk-resend',
    () => {
      const { resend, ...keys } = snippets.clerkResendKeys(
        json({ type: 'user.created' }, { headers: { 'svix-id': 'msg_2yZwUhtgs5Ai8T9yRQJXA' } }),
      );
      expect(resend).toBe(keys.request);
      return keys;
    },
  ],
  [
    'razorpay',
    () =>
      snippets.razorpayKeys(
        json(
          { event: 'payment.captured' },
          { headers: { 'x-razorpay-event-id': 'H0xbMB9XvKgvDp' } },
        ),
      ),
  ],
  ['discord', () => snippets.discordKeys(json({ id: '1247856129870041118', type: 2 }))],
  [
    'twitch',
    () =>
      snippets.twitchKeys(
        json(
          { subscription: {}, event: {} },
          { headers: { 'twitch-eventsub-message-id': 'e76c6bd4-55c9-4987-8304-da1588d8988b' } },
        ),
      ),
  ],
  [
    'gitlab',
    () =>
      snippets.gitlabKeys(
        json(
          { object_kind: 'push' },
          { headers: { 'idempotency-key': '908a6d9e-45fd-46c8-97e6-c4f350f219dd' } },
        ),
      ),
  ],
  ['square', () => snippets.squareKeys(json({ event_id: '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc' }))],
  ['typeform', () => snippets.typeformKeys(json({ event_id: '01HV7R3X9Q4W8B1Z6N2M5K7J3T' }))],
  [
    'checkout-vercel',
    () => {
      const { vercel, intercom, ...keys } = snippets.checkoutVercelKeys(
        json({ id: 'evt_az5sblvku4ge3dwpztvyizgcau', type: 'payment_approved' }),
      );
      expect([vercel, intercom]).toEqual([keys.request, keys.request]);
      return keys;
    },
  ],
  [
    'hmac',
    () => snippets.hmacKeys(json({ id: 1 }, { headers: { 'x-acme-delivery': 'acme_dlv_31' } })),
  ],
  [
    'twilio',
    () => {
      const sms = form({ MessageSid: 'SM0123456789abcdef0123456789abcdef', SmsStatus: 'received' });
      return snippets.twilioKeys(
        { ...sms, headers: { ...sms.headers, 'i-twilio-idempotency-token': 'f7d1c2a4-idem-0042' } },
        // A <Gather> action of a call: its URL (/webhook under baseUrl) and fields are what Twilio signs.
        form({
          CallSid: 'CA0123456789abcdef0123456789abcdef',
          CallStatus: 'in-progress',
          Digits: '1',
        }),
      );
    },
  ],
  [
    'linear',
    () =>
      snippets.linearKeys(
        json(
          { action: 'update', type: 'Issue', data: {} },
          { headers: { 'linear-delivery': '6a1f3b8e-2d4c-4b8a-9e7f-0c5d1a2b3c4d' } },
        ),
      ),
  ],
  [
    'mercadopago',
    () =>
      snippets.mercadopagoKeys(
        json(
          { id: 12345, type: 'payment', data: { id: '999999999' } },
          {
            url: '/webhooks/mercadopago?data.id=999999999&type=payment',
            headers: { 'x-request-id': 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e' },
          },
        ),
      ),
  ],
  [
    'zoom',
    () =>
      snippets.zoomKeys(
        json({
          event: 'meeting.started',
          event_ts: 1733306400123,
          payload: {
            account_id: 'D8cJuqWVQ623CI4Q8yQK0Q',
            object: { id: '85746065', uuid: '4444AAAiAAAAAiAiAiiAii==', topic: 'Standup' },
          },
        }),
      ),
  ],
  [
    'braintree',
    () => {
      const xml =
        '<notification><timestamp type="datetime">2026-12-04T10:00:00Z</timestamp><kind>subscription_charged_successfully</kind><subject><subscription><id>sub_42</id></subscription></subject></notification>';
      return snippets.braintreeKeys(
        form({
          bt_signature: 'braintree-public|x',
          bt_payload: Buffer.from(xml).toString('base64'),
        }),
      );
    },
  ],
  [
    'mailgun',
    () =>
      snippets.mailgunKeys(
        json({
          signature: { timestamp: '1770920772', token: 't', signature: 's' },
          'event-data': { id: 'CPgfbmQMTCKtHW6uIWtuVe', event: 'delivered' },
        }),
      ),
  ],
  // Signed tokens and public keys.
  [
    'telnyx',
    () =>
      snippets.telnyxKeys(
        json({
          data: { id: 'b301ed3f-1490-491f-995f-6e64e69674d4', event_type: 'message.received' },
          meta: { attempt: 1 },
        }),
      ),
  ],
  [
    'qstash',
    () =>
      snippets.qstashKeys(
        json(
          { order: 6735 },
          { headers: { 'upstash-message-id': 'msg_26hZCxZCuWyyTWPmSVBrNC1RADwm' } },
        ),
      ),
  ],
  [
    'vonage',
    () =>
      snippets.vonageKeys(
        json({ message_uuid: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001', status: 'delivered' }),
      ),
  ],
  [
    'plaid',
    () =>
      snippets.plaidKeys(
        json({ webhook_type: 'ITEM', webhook_code: 'ERROR', item_id: 'itm_1' }),
        async () => undefined,
      ),
  ],
  [
    'cloudinary',
    () =>
      snippets.cloudinaryKeys(
        json({ notification_type: 'upload', public_id: 'samples/cat', version: 1765022398 }),
      ),
  ],
  [
    'dropbox-sign',
    () => {
      const event = {
        event_time: '1765022400',
        event_type: 'signature_request_signed',
        event_hash: 'not checked by key()',
        event_metadata: { related_signature_id: '5a3f2b1c' },
      };
      const signatureRequest = { signature_request_id: 'fa5c8a0b0f492d768749333ad6fcc214c111e967' };
      const json = JSON.stringify({ event, signature_request: signatureRequest });
      return snippets.dropboxSignKeys(
        req({
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
          body: `--x\r\nContent-Disposition: form-data; name="json"\r\n\r\n${json}\r\n--x--\r\n`,
        }),
      );
    },
  ],
  [
    'tbank',
    () =>
      snippets.tbankKeys(
        json({ TerminalKey: 'DEMO', PaymentId: 7001234567, Status: 'CONFIRMED', Amount: 50000 }),
      ),
  ],
  [
    'robokassa',
    () =>
      snippets.robokassaKeys(
        form({ OutSum: '100.000000', InvId: '450009', SignatureValue: 'x', Shp_item: '1' }),
      ),
  ],
  [
    'pagerduty',
    () =>
      snippets.pagerdutyKeys(
        json({ event: { id: '01DEN3DAPKRM3UYEXIY6YVKYOD', event_type: 'incident.triggered' } }),
      ),
  ],
  [
    'openai',
    () =>
      snippets.openaiKeys(
        json(
          { object: 'event', type: 'response.completed', data: { id: 'resp_abc123' } },
          { headers: { 'webhook-id': 'wh_685342e6c53c8190a1be43f081506c52' } },
        ),
      ),
  ],
  [
    'replicate',
    () =>
      snippets.replicateKeys(
        json(
          { id: 'ufawqhfynnddngldkgtslldrkq', status: 'succeeded' },
          { headers: { 'webhook-id': 'msg_2hdGs8R9kM7xv3ZqNwe1Lt0bYcA' } },
        ),
      ),
  ],
  [
    'stytch',
    () =>
      snippets.stytchKeys(
        json(
          { event_id: 'event-live-1', action: 'CREATE', object_type: 'user', source: 'DIRECT' },
          { headers: { 'svix-id': 'msg_2zQbH4tYk9LrVw3XcN8sPd1aGfE' } },
        ),
      ),
  ],
  [
    'polar',
    () =>
      snippets.polarKeys(
        json(
          { type: 'order.paid', data: { id: 'order-1' } },
          { headers: { 'webhook-id': 'msg_2wXk7Qe9RtYb4NcLp3ZsHd8JfGa' } },
        ),
      ),
  ],
  [
    'dodopayments',
    () =>
      snippets.dodopaymentsKeys(
        json(
          { type: 'payment.succeeded', data: { payment_id: 'pay_1' } },
          { headers: { 'webhook-id': 'msg_2xVb8Kq3TnWe6RzYp1LcHd4JsFa' } },
        ),
      ),
  ],
  [
    'supabase-auth-hooks',
    () =>
      snippets.supabaseAuthHooksKeys(
        json(
          { user: { id: 'u1' }, email_data: { token: '305805' } },
          { headers: { 'webhook-id': 'msg_2yTq5Wc8NbZe3RxKp6LvHd1JsGa' } },
        ),
      ),
  ],
  [
    'chargebee',
    () =>
      snippets.chargebeeKeys(
        json({ id: 'ev_16BHbhF4s42tO2lK', event_type: 'subscription_created', content: {} }),
      ),
  ],
  [
    'google-calendar',
    () =>
      snippets.googleCalendarKeys(
        req({
          body: '',
          headers: {
            'x-goog-channel-id': '01234567-89ab-cdef-0123456789ab',
            'x-goog-message-number': '398005',
            'x-goog-resource-state': 'exists',
          },
        }),
      ),
  ],
];

it.each(cases)('%s: the key in the comment is the key the preset reads', (region, run) => {
  const expected = commentedKeys(region);
  expect(Object.keys(expected).length).toBeGreaterThan(0);
  expect(run()).toEqual(expected);
});

it('auth0: the keys in the comment are the log_ids the preset reads from JSON lines', () => {
  const ids = /\/\/ (\[[^\]]+\])/.exec(readRegion(source, 'auth0'))![1]!;
  const lines = ['90020261201100000001', '90020261201100000002']
    .map((log_id) => JSON.stringify({ log_id, data: { type: 's', log_id } }))
    .join('\n');
  expect(snippets.auth0Keys(req({ body: lines }))).toEqual(JSON.parse(ids.replace(/'/g, '"')));
});

it('okta: the keys in the comment are the uuids the preset reads from data.events', () => {
  const ids = /\/\/ (\[[^\]]+\])/.exec(readRegion(source, 'okta'))![1]!;
  const events = [
    { uuid: 'f8ec1c7c-1e04-11f1-a9f3-6f3d2b0c0001', eventType: 'user.session.start' },
  ];
  const body = { eventType: 'com.okta.event_hook', data: { events } };
  expect(snippets.oktaKeys(json(body))).toEqual(JSON.parse(ids.replace(/'/g, '"')));
});

it('microsoft-graph: one sha256 key per notification, as the comment says', () => {
  const note = { subscriptionId: 's', changeType: 'created', resource: 'Users/u1/Messages/m1' };
  const keys = snippets.microsoftGraphKeys(
    json({ value: [{ ...note, clientState: 'graph-state' }] }),
  );
  expect(readRegion(source, 'microsoft-graph')).toContain("// ['sha256:…']");
  expect(keys).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
});

it('azure-event-grid: the keys in the comment are the event ids the preset reads', () => {
  const ids = /\/\/ (\[[^\]]+\])/.exec(readRegion(source, 'azure-event-grid'))![1]!;
  const events = [
    { id: '831e1650-001e-001b-66ab-eeb76e069631', eventType: 'Microsoft.Storage.BlobCreated' },
  ];
  const keys = snippets.azureEventGridKeys(
    json(events, { url: '/webhooks/eventgrid?code=grid-secret' }),
  );
  expect(keys).toEqual(JSON.parse(ids.replace(/'/g, '"')));
});

it('click: a Complete with error < 0 is keyed as a cancellation, as the comment says', () => {
  const cancel = form({
    click_trans_id: '2263123456',
    action: '1',
    error: '-5017',
    merchant_prepare_id: '5',
  });
  expect(snippets.clickKeys(cancel, cancel).completeRequest).toBe('2263123456:1:cancel');
});

describe('the Stripe preset on an Express route', () => {
  const app = express();
  const store = new InMemoryStore();
  let runs = 0;
  snippets.stripeRoute(app, store, (_req, res) => {
    runs++;
    res.json({ received: true });
  });
  const body = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });
  const signed = (secret: string) => {
    const t = Math.floor(Date.now() / 1000);
    return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  };
  const send = (signature: string) =>
    request(app)
      .post('/webhooks/stripe')
      .set('content-type', 'application/json')
      .set('stripe-signature', signature)
      .send(body);

  it('runs a signed event once, replays it, and answers 401 to a bad signature without a receipt', async () => {
    await send(signed('whsec_test')).expect(200, { received: true });
    await send(signed('whsec_test')).expect(200).expect('idempotent-replayed', 'true');
    await send(signed('whsec_wrong')).expect(401);
    expect(runs).toBe(1);
    expect(store.size).toBe(1);
  });
});

it('mandrill: each event of mandrill_events is an item keyed on its content, as the comment says', () => {
  const events = [{ event: 'open', _id: 'msg-1', ts: 1765022400 }, { type: 'whitelist' }];
  const items = snippets.mandrillKeys(form({ mandrill_events: JSON.stringify(events) }));
  expect(items?.map((item) => item.key)).toEqual([
    expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
  ]);
  expect(items?.map((item) => item.value)).toEqual(events);
});
