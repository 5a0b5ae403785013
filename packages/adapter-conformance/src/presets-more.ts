/**
 * @module The presets of the third catalogue batch (Wise, PayPal, Coinbase Commerce, Lemon Squeezy,
 * Airwallex, Paystack, Calendly, Sentry, Bitbucket, Postmark): one genuine delivery each, signed
 * the way that provider signs, and a forged copy. Kept beside `presets.ts` (which stays under the
 * file-size limit); the preset cases run both lists.
 */
import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import type { PresetFixture, PresetRequest } from './presets';
// PayPal's signer: a certificate with its subject, issued by a test CA, and its key (the providers'
// PayPal tests hold the CA and the rest of the set). Served by the preset's injected fetch.
import {
  SIGNER as PAYPAL_SIGNER,
  SIGNER_KEY as PAYPAL_SIGNER_KEY,
} from '../../providers/test/fixtures/paypal-certificates';

const hex = (algorithm: string, key: string, data: string) =>
  createHmac(algorithm, key).update(data).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

/**
 * Wise's private key is Wise's: the preset is given a public key of ours (the PayPal test
 * signer's, below); a forger signs with a key made on first use.
 */
let forgerKey: KeyObject | undefined;
const forger = () => {
  forgerKey ??= generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  return forgerKey;
};
const wiseEvent = JSON.stringify({
  data: { resource: { id: 49983981, type: 'transfer' }, current_state: 'outgoing_payment_sent' },
  subscription_id: '90aa8e14-4ef1-4a56-861c-f3c9cde097ea',
  event_type: 'transfers#state-change',
  schema_version: '2.0.0',
  sent_at: '2026-12-01T10:00:00Z',
});
const wiseSigned = (key: string | KeyObject): PresetRequest => ({
  body: wiseEvent,
  headers: {
    'x-delivery-id': 'wise-delivery-conformance',
    'x-signature-sha256': sign('sha256', Buffer.from(wiseEvent), key).toString('base64'),
  },
});

const PAYPAL_WEBHOOK_ID = '8PT597110X687430LKGECATA';
const paypalEvent = JSON.stringify({
  id: 'WH-CONFORMANCE-0000000000000000',
  event_type: 'PAYMENT.CAPTURE.COMPLETED',
  resource: { id: '42311647XV020574X', amount: { currency_code: 'USD', value: '10.00' } },
});
/** CRC-32 (IEEE) of the body, as PayPal signs it: written out here so the fixture judges the preset's own. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
const paypalSigned = (key: string | KeyObject): PresetRequest => {
  const id = '69cd13f0-d67a-11e5-baa3-778b53f4ae55';
  const time = '2026-12-01T10:00:01Z';
  const message = `${id}|${time}|${PAYPAL_WEBHOOK_ID}|${crc32(Buffer.from(paypalEvent))}`;
  return {
    body: paypalEvent,
    headers: {
      'paypal-transmission-id': id,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': sign('sha256', Buffer.from(message), key).toString('base64'),
      'paypal-cert-url':
        'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-conformance',
      'paypal-auth-algo': 'SHA256withRSA',
    },
  };
};

const coinbaseEvent = JSON.stringify({
  id: 'cb-delivery-1',
  attempt_number: 1,
  event: { id: 'cb-evt-conformance', type: 'charge:confirmed', data: { code: '66BEOV2A' } },
});
const lemonEvent = JSON.stringify({
  meta: { event_name: 'order_created' },
  data: { type: 'orders', id: '1', attributes: { updated_at: '2026-12-01T10:00:00.000000Z' } },
});
const airwallexEvent = JSON.stringify({
  id: 'awx-evt-conformance',
  name: 'payment_intent.succeeded',
});
const paystackEvent = JSON.stringify({
  event: 'charge.success',
  data: { id: 302961, reference: 'r' },
});
const calendlyEvent = JSON.stringify({
  event: 'invitee.created',
  payload: { uri: 'https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE' },
});
const sentryEvent = JSON.stringify({ action: 'created', data: { issue: { id: '1170820242' } } });
const bitbucketEvent = JSON.stringify({ push: { changes: [] }, repository: { full_name: 't/r' } });
const postmarkEvent = JSON.stringify({
  RecordType: 'Delivery',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  Recipient: 'john@example.com',
});

const bodySigned =
  (
    header: string,
    body: string,
    extra: Record<string, string> = {},
    prefix = '',
    algorithm = 'sha256',
  ) =>
  (secret: string): PresetRequest => ({
    body,
    headers: { ...extra, [header]: prefix + hex(algorithm, secret, body) },
  });
const coinbaseSigned = bodySigned('x-cc-webhook-signature', coinbaseEvent);
const lemonSigned = bodySigned('x-signature', lemonEvent);
const paystackSigned = bodySigned('x-paystack-signature', paystackEvent, {}, '', 'sha512');
const sentrySigned = bodySigned('sentry-hook-signature', sentryEvent, {
  'request-id': 'sentry-request-conformance',
  'sentry-hook-resource': 'issue',
});
const bitbucketSigned = bodySigned(
  'x-hub-signature',
  bitbucketEvent,
  { 'x-request-uuid': 'bb-request-conformance', 'x-event-key': 'repo:push' },
  'sha256=',
);
const airwallexSigned = (secret: string): PresetRequest => {
  const stamp = String(Date.now());
  return {
    body: airwallexEvent,
    headers: { 'x-timestamp': stamp, 'x-signature': hex('sha256', secret, stamp + airwallexEvent) },
  };
};
const calendlySigned = (key: string): PresetRequest => {
  const t = now();
  return {
    body: calendlyEvent,
    headers: {
      'calendly-webhook-signature': `t=${t},v1=${hex('sha256', key, `${t}.${calendlyEvent}`)}`,
    },
  };
};
const postmarkSent = (password: string): PresetRequest => ({
  body: postmarkEvent,
  headers: {
    authorization: `Basic ${Buffer.from(`postmark:${password}`).toString('base64')}`,
  },
});

/** Every preset of this batch, as the suite drives it through each adapter. */
export const morePresetFixtures: readonly PresetFixture[] = [
  {
    name: 'wise',
    preset: () => providers.wise({ publicKey: createPublicKey(PAYPAL_SIGNER) }),
    externalId: 'wise-delivery-conformance',
    delivery: () => wiseSigned(PAYPAL_SIGNER_KEY),
    forged: () => wiseSigned(forger()),
  },
  {
    name: 'paypal',
    preset: () =>
      providers.paypal({
        webhookId: PAYPAL_WEBHOOK_ID,
        fetchCertificate: async () => PAYPAL_SIGNER,
      }),
    externalId: 'WH-CONFORMANCE-0000000000000000',
    delivery: () => paypalSigned(PAYPAL_SIGNER_KEY),
    forged: () => paypalSigned(forger()),
  },
  {
    name: 'coinbase',
    preset: () => providers.coinbase({ secret: 'conformance coinbase secret' }),
    externalId: 'cb-evt-conformance',
    delivery: () => coinbaseSigned('conformance coinbase secret'),
    forged: () => coinbaseSigned('forger'),
  },
  {
    name: 'lemonsqueezy',
    preset: () => providers.lemonsqueezy({ secret: 'conformance lemon secret' }),
    externalId: 'order_created:orders:1@2026-12-01T10:00:00.000000Z',
    delivery: () => lemonSigned('conformance lemon secret'),
    forged: () => lemonSigned('forger'),
  },
  {
    name: 'airwallex',
    preset: () => providers.airwallex({ secret: 'conformance airwallex secret' }),
    externalId: 'awx-evt-conformance',
    delivery: () => airwallexSigned('conformance airwallex secret'),
    forged: () => airwallexSigned('forger'),
  },
  {
    name: 'paystack',
    preset: () => providers.paystack({ secretKey: 'sk_test_conformance' }),
    externalId: 'charge.success:302961',
    delivery: () => paystackSigned('sk_test_conformance'),
    forged: () => paystackSigned('sk_test_forger'),
  },
  {
    name: 'calendly',
    preset: () => providers.calendly({ signingKey: 'conformance calendly key' }),
    externalId:
      'invitee.created:https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE',
    delivery: () => calendlySigned('conformance calendly key'),
    forged: () => calendlySigned('forger'),
  },
  {
    name: 'sentry',
    preset: () => providers.sentry({ clientSecret: 'conformance sentry secret' }),
    externalId: 'sentry-request-conformance',
    delivery: () => sentrySigned('conformance sentry secret'),
    forged: () => sentrySigned('forger'),
  },
  {
    name: 'bitbucket',
    preset: () => providers.bitbucket({ secret: 'conformance bitbucket secret' }),
    externalId: 'bb-request-conformance',
    delivery: () => bitbucketSigned('conformance bitbucket secret'),
    forged: () => bitbucketSigned('forger'),
  },
  {
    name: 'postmark',
    preset: () => providers.postmark({ username: 'postmark', password: 'conformance password' }),
    externalId: 'Delivery:883953f4-6105-42a2-a16a-77a8eac79483:john@example.com',
    delivery: () => postmarkSent('conformance password'),
    forged: () => postmarkSent('forged password'),
  },
];
