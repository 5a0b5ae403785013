/**
 * @module Fixtures of the presets whose provider signs the raw body alone (GitHub, Shopify,
 * Razorpay, Typeform, Checkout.com, Vercel, Intercom, Coinbase Commerce, Lemon Squeezy,
 * Paystack, Sentry, Bitbucket, and `hmac()` configured): nothing timed is signed.
 */
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';

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

export const bodySignedFixtures: readonly PresetFixture[] = [
  {
    name: 'github',
    preset: () => providers.github({ secret: 'conformance github secret' }),
    externalId: '7d0a3a6e-0000-11ef-8e0e-conformance',
    timed: false,
    delivery: () =>
      signers
        .github({ secret: 'conformance github secret', url })
        .event(
          { ref: 'refs/heads/main', commits: [{ id: 'c1' }] },
          { delivery: '7d0a3a6e-0000-11ef-8e0e-conformance' },
        ),
  },
  {
    name: 'shopify',
    preset: () => providers.shopify({ secret: 'conformance shopify secret' }),
    externalId: 'conformance.myshopify.com:b54557e4-bdd9-4b37-8a5f-conformance',
    timed: false,
    delivery: () =>
      signers
        .shopify({ secret: 'conformance shopify secret', shop: 'conformance.myshopify.com', url })
        .event(
          { id: 820982911946154500, total_price: '10.00' },
          { webhookId: 'b54557e4-bdd9-4b37-8a5f-conformance' },
        ),
  },
  {
    name: 'razorpay',
    preset: () => providers.razorpay({ secret: 'conformance razorpay secret' }),
    externalId: 'HconformanceEv',
    timed: false,
    delivery: () =>
      signers
        .razorpay({ secret: 'conformance razorpay secret', url })
        .event({ entity: 'event', event: 'payment.captured' }, { id: 'HconformanceEv' }),
  },
  {
    name: 'typeform',
    preset: () => providers.typeform({ secret: 'conformance typeform secret' }),
    externalId: 'tf-evt-conformance',
    timed: false,
    delivery: () =>
      signers
        .typeform({ secret: 'conformance typeform secret', url })
        .event({ event_id: 'tf-evt-conformance', event_type: 'form_response' }),
  },
  {
    name: 'checkout',
    preset: () => providers.checkout({ secret: 'conformance cko key' }),
    externalId: 'evt_conformance_cko',
    timed: false,
    delivery: () =>
      signers
        .checkout({ secret: 'conformance cko key', url })
        .event({ id: 'evt_conformance_cko', type: 'payment_approved' }),
  },
  {
    name: 'vercel',
    preset: () => providers.vercel({ secret: 'conformance vercel secret' }),
    externalId: 'vercel-evt-conformance',
    timed: false,
    delivery: () =>
      signers
        .vercel({ secret: 'conformance vercel secret', url })
        .event({ id: 'vercel-evt-conformance', type: 'deployment.created' }),
  },
  {
    name: 'intercom (a retry counts its attempt)',
    preset: () => providers.intercom({ secret: 'conformance intercom secret' }),
    externalId: 'notif_conformance',
    timed: false,
    delivery: () =>
      signers
        .intercom({ secret: 'conformance intercom secret', url })
        .event({ type: 'notification_event', id: 'notif_conformance', delivery_attempts: 1 }),
  },
  {
    name: 'coinbase (a retry counts its attempt)',
    preset: () => providers.coinbase({ secret: 'conformance coinbase secret' }),
    externalId: 'cb-evt-conformance',
    timed: false,
    delivery: () =>
      signers.coinbase({ secret: 'conformance coinbase secret', url }).event({
        id: 'cb-delivery-1',
        attempt_number: 1,
        event: { id: 'cb-evt-conformance', type: 'charge:confirmed', data: { code: '66BEOV2A' } },
      }),
  },
  {
    name: 'lemonsqueezy',
    preset: () => providers.lemonsqueezy({ secret: 'conformance lemon secret' }),
    externalId: 'order_created:orders:1@2026-12-01T10:00:00.000000Z',
    timed: false,
    delivery: () =>
      signers.lemonsqueezy({ secret: 'conformance lemon secret', url }).event({
        meta: { event_name: 'order_created' },
        data: {
          type: 'orders',
          id: '1',
          attributes: { updated_at: '2026-12-01T10:00:00.000000Z' },
        },
      }),
  },
  {
    name: 'paystack',
    preset: () => providers.paystack({ secretKey: 'sk_test_conformance' }),
    externalId: 'charge.success:302961',
    timed: false,
    delivery: () =>
      signers
        .paystack({ secretKey: 'sk_test_conformance', url })
        .event({ event: 'charge.success', data: { id: 302961, reference: 'r' } }),
  },
  {
    name: 'sentry',
    preset: () => providers.sentry({ clientSecret: 'conformance sentry secret' }),
    externalId: 'sentry-request-conformance',
    timed: false,
    delivery: () =>
      signers
        .sentry({ clientSecret: 'conformance sentry secret', url })
        .event(
          { action: 'created', data: { issue: { id: '1170820242' } } },
          { id: 'sentry-request-conformance' },
        ),
  },
  {
    name: 'bitbucket',
    preset: () => providers.bitbucket({ secret: 'conformance bitbucket secret' }),
    externalId: 'bb-request-conformance',
    timed: false,
    delivery: () =>
      signers
        .bitbucket({ secret: 'conformance bitbucket secret', url })
        .event(
          { push: { changes: [] }, repository: { full_name: 't/r' } },
          { id: 'bb-request-conformance' },
        ),
  },
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
];
