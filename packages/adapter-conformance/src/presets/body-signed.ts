/**
 * @module Fixtures of the presets whose provider signs the raw body alone (GitHub, Shopify,
 * Razorpay, Typeform, Checkout.com, Vercel, Intercom, Coinbase Commerce, Lemon Squeezy,
 * Paystack, Sentry, Bitbucket, and `hmac()` configured): nothing timed is signed.
 */
import { createHash } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const url = HOOK_URL;

const ACME = {
  provider: 'acme',
  secret: 'conformance generic secret',
  signatureHeader: 'x-acme-signature',
  algorithm: 'sha512',
  prefix: 'sha512=',
  key: 'x-acme-delivery',
  retentionDays: 3,
} as const;

const NOTION_TOKEN = 'secret_conformance_notion_token';
const notion = () => signers.notion({ verificationToken: NOTION_TOKEN, url });

const WOO_SECRET = 'conformance woocommerce secret';
const woocommerce = () => signers.woocommerce({ secret: WOO_SECRET, url, topic: 'order.updated' });
/** A WooCommerce order as sent (its keys already in canonical order) and the key it gets. */
const WOO_ORDER = { id: 4242, status: 'processing' };
const WOO_KEY = `order.updated:4242:${createHash('sha256')
  .update(JSON.stringify(WOO_ORDER))
  .digest('hex')
  .slice(0, 32)}`;

const VIBER_TOKEN = '4453b6ac12345678-e02c5f12174805f9-conformance';
const viber = () => signers.viber({ authToken: VIBER_TOKEN, url });

export const bodySignedFixtures: readonly PresetFixture[] = [
  ...secretFixtures(
    {
      github: {
        id: '7d0a3a6e-0000-11ef-8e0e-conformance',
        event: [
          { ref: 'refs/heads/main', commits: [{ id: 'c1' }] },
          { delivery: '7d0a3a6e-0000-11ef-8e0e-conformance' },
        ],
      },
      shopify: {
        id: 'conformance.myshopify.com:b54557e4-bdd9-4b37-8a5f-conformance',
        signer: { shop: 'conformance.myshopify.com' },
        event: [
          { id: 820982911946154500, total_price: '10.00' },
          { webhookId: 'b54557e4-bdd9-4b37-8a5f-conformance' },
        ],
      },
      razorpay: {
        id: 'HconformanceEv',
        event: [{ entity: 'event', event: 'payment.captured' }, { id: 'HconformanceEv' }],
      },
      typeform: {
        id: 'tf-evt-conformance',
        event: [{ event_id: 'tf-evt-conformance', event_type: 'form_response' }],
      },
      checkout: {
        id: 'evt_conformance_cko',
        event: [{ id: 'evt_conformance_cko', type: 'payment_approved' }],
      },
      vercel: {
        id: 'vercel-evt-conformance',
        event: [{ id: 'vercel-evt-conformance', type: 'deployment.created' }],
      },
      intercom: {
        id: 'notif_conformance',
        note: 'a retry counts its attempt',
        event: [{ type: 'notification_event', id: 'notif_conformance', delivery_attempts: 1 }],
      },
      coinbase: {
        id: 'cb-evt-conformance',
        note: 'a retry counts its attempt',
        event: [
          {
            id: 'cb-delivery-1',
            attempt_number: 1,
            event: {
              id: 'cb-evt-conformance',
              type: 'charge:confirmed',
              data: { code: '66BEOV2A' },
            },
          },
        ],
      },
      lemonsqueezy: {
        id: 'order_created:orders:1@2026-12-01T10:00:00.000000Z',
        event: [
          {
            meta: { event_name: 'order_created' },
            data: {
              type: 'orders',
              id: '1',
              attributes: { updated_at: '2026-12-01T10:00:00.000000Z' },
            },
          },
        ],
      },
      paystack: {
        id: 'charge.success:302961',
        option: 'secretKey',
        event: [{ event: 'charge.success', data: { id: 302961, reference: 'r' } }],
      },
      sentry: {
        id: 'sentry-request-conformance',
        option: 'clientSecret',
        event: [
          { action: 'created', data: { issue: { id: '1170820242' } } },
          { id: 'sentry-request-conformance' },
        ],
      },
      bitbucket: {
        id: 'bb-request-conformance',
        event: [
          { push: { changes: [] }, repository: { full_name: 't/r' } },
          { id: 'bb-request-conformance' },
        ],
      },
    },
    false,
  ),
  {
    name: 'hmac (a configured provider)',
    preset: () => providers.hmac(ACME),
    externalId: 'acme-d-1',
    timed: false,
    delivery: () =>
      signers
        .hmac({ ...ACME, url })
        .event({ id: 'acme_evt_1', kind: 'order.paid' }, { id: 'acme-d-1' }),
  },
  {
    name: 'notion (a retry raises attempt_number; the unsigned verification answered)',
    preset: () =>
      providers.notion({ verificationToken: NOTION_TOKEN, onVerificationToken: () => undefined }),
    externalId: 'notion-evt-conformance',
    timed: false,
    delivery: () =>
      notion().event({
        id: 'notion-evt-conformance',
        type: 'page.created',
        entity: { id: 'p1', type: 'page' },
        attempt_number: 1,
      }),
    handshake: {
      request: () => notion().verification(),
      externalId: 'undefined',
      replay: (answer) => ({
        body: answer,
        headers: { 'x-notion-signature': `sha256=${answer}` },
      }),
    },
  },
  {
    name: 'woocommerce (a new delivery id per send; the creation ping answered)',
    preset: () => providers.woocommerce({ secret: WOO_SECRET }),
    externalId: WOO_KEY,
    timed: false,
    delivery: () => woocommerce().event(WOO_ORDER),
    handshake: {
      request: () => woocommerce().ping(),
      externalId: 'undefined',
      replay: (answer) => ({ body: answer, headers: { 'x-wc-webhook-signature': answer } }),
    },
  },
  {
    name: 'viber (a 64-bit message_token read exactly; the webhook callback answered)',
    preset: () => providers.viber({ authToken: VIBER_TOKEN }),
    externalId: 'message:5741311803571721089:01234567890A=',
    timed: false,
    delivery: () =>
      viber().event(
        '{"event":"message","timestamp":1764626400000,"message_token":5741311803571721089,' +
          '"sender":{"id":"01234567890A=","name":"Conformance"},"message":{"type":"text","text":"hi"}}',
      ),
    handshake: {
      request: () => viber().webhookCallback(),
      externalId: 'webhook:5741311803571721087',
      replay: (answer) => ({
        body: answer,
        headers: { 'x-viber-content-signature': answer },
      }),
    },
  },
];
