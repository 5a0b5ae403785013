/**
 * The "Freshness window" column of docs/providers.md's "Every preset at a glance", held against
 * the presets: where a row gives a number of seconds, a delivery the test kit signed a second
 * inside the window verifies, and one signed a second outside it, in the past or in the future,
 * is refused; where a row says the provider signs a time that is not checked (by default), a
 * delivery signed 400 days away from now verifies. The kit signs as each provider does (its
 * signers are judged by the providers' own SDKs in
 * packages/providers/test/testing/sdk-judges.test.ts); the preset reads the same clock.
 */
import type { HttpRequest } from '../../packages/core/src';
import * as signers from '../../packages/providers/src/testing';
import {
  INTERMEDIATE_CA,
  SIGNER,
  SIGNER_KEY,
} from '../../packages/providers/test/fixtures/paypal-certificates';
import { build, rows } from './preset-table';

/** Within the validity of the PayPal test certificates. */
const NOW = Date.parse('2030-01-01T00:00:00.000Z');
const clock = () => NOW;
const SVIX_SECRET = `whsec_${Buffer.from('kit-window-secret-of-32-bytes-ok').toString('base64')}`;
const EVENT = { id: 'evt_window', type: 'window.checked', event_id: 'evt_window' };

/** What a row's preset is given beside its minimal options, and the kit's delivery signed at a time. */
interface Timed {
  readonly options: object;
  readonly sign: (at: number) => signers.Delivery;
}

type Signer<O> = (options: O) => {
  event(payload: object, delivery: { at: number }): signers.Delivery;
};
/** A provider whose signer takes the options its preset takes. */
const alike = <O extends object>(signer: Signer<O>, options: O): Timed => ({
  options,
  sign: (at) => signer(options).event(EVENT, { at }),
});

const discord = signers.discord();
const sendgrid = signers.sendgrid();
const telnyx = signers.telnyx();
const plaid = signers.plaid();
const hubspot = { clientSecret: 'hubspot-secret', targetUrl: 'https://example.com/hooks/hubspot' };
const acme = {
  secret: 'acme secret',
  signatureHeader: 'x-acme-signature',
  key: 'x-acme-delivery',
  timestamp: { header: 'x-acme-timestamp' },
  signedPayload: (r: { timestamp?: string; body: Buffer }) => [`${r.timestamp}.`, r.body],
};

/** Every preset whose row gives a window in seconds: how to sign a delivery for it. */
const TIMED: Record<string, Timed> = {
  stripe: alike(signers.stripe, { secret: 'whsec_window' }),
  standardWebhooks: alike(signers.standardWebhooks, { secret: SVIX_SECRET }),
  clerk: alike(signers.clerk, { secret: SVIX_SECRET }),
  resend: alike(signers.resend, { secret: SVIX_SECRET }),
  slack: alike(signers.slack, { signingSecret: 'slack-signing-secret' }),
  paddle: alike(signers.paddle, { secret: 'paddle-secret' }),
  calendly: alike(signers.calendly, { signingKey: 'calendly-key' }),
  twitch: alike(signers.twitch, { secret: 'a-subscription-secret' }),
  linear: alike(signers.linear, { secret: 'linear-secret' }),
  workos: alike(signers.workos, { secret: 'workos-secret' }),
  elevenlabs: alike(signers.elevenlabs, { secret: 'elevenlabs-secret' }),
  sanity: alike(signers.sanity, { secret: 'sanity-secret' }),
  mux: alike(signers.mux, { secret: 'mux-secret' }),
  webflow: alike(signers.webflow, { secret: 'webflow-secret' }),
  recurly: alike(signers.recurly, { secret: 'recurly-secret' }),
  revolut: alike(signers.revolut, { signingSecret: 'revolut-secret' }),
  persona: alike(signers.persona, { secret: 'persona-secret' }),
  discord: {
    options: { publicKey: discord.publicKey },
    sign: (at) => discord.event({ id: '1', type: 2 }, { at }),
  },
  sendgrid: {
    options: { publicKey: sendgrid.publicKey },
    sign: (at) => sendgrid.event([{ sg_event_id: 'sg_1', event: 'delivered' }], { at }),
  },
  hubspot: {
    options: hubspot,
    sign: (at) =>
      signers.hubspot(hubspot).event([{ eventId: 1, subscriptionId: 2, portalId: 3 }], { at }),
  },
  openai: alike(signers.openai, { secret: SVIX_SECRET }),
  replicate: alike(signers.replicate, { secret: SVIX_SECRET }),
  stytch: alike(signers.stytch, { secret: SVIX_SECRET }),
  polar: alike(signers.polar, { secret: SVIX_SECRET }),
  dodopayments: alike(signers.dodopayments, { secret: SVIX_SECRET }),
  supabaseAuthHooks: alike(signers.supabaseAuthHooks, { secret: SVIX_SECRET }),
  hmac: {
    options: acme,
    sign: (at) => signers.hmac(acme).event(EVENT, { at }),
  },
  // Signed tokens and public keys.
  telnyx: {
    options: { publicKey: telnyx.publicKey },
    sign: (at) => telnyx.event({ data: { id: 'evt_window', event_type: 'window' } }, { at }),
  },
  qstash: {
    options: { signingKey: 'sig_window', url: 'https://example.com/webhooks/qstash' },
    sign: (at) => signers.qstash({ signingKey: 'sig_window' }).event(EVENT, { at }),
  },
  vonage: {
    options: { signatureSecret: 'vonage-window' },
    sign: (at) =>
      signers.vonage({ signatureSecret: 'vonage-window' }).event({ message_uuid: 'u1' }, { at }),
  },
  plaid: {
    options: { fetchKey: plaid.fetchKey },
    sign: (at) => plaid.event({ webhook_type: 'ITEM', webhook_code: 'ERROR' }, { at }),
  },
  cloudinary: alike(signers.cloudinary, { apiSecret: 'cloudinary-secret' }),
};

/** Every preset whose row says its provider signs a time that is not checked: how to sign for it. */
const UNCHECKED: Record<string, Timed> = {
  click: {
    options: { secretKey: 'click-secret' },
    sign: (at) =>
      signers
        .click({ secretKey: 'click-secret' })
        .prepare(
          { click_trans_id: 1, service_id: 2, merchant_trans_id: '3', amount: '10.00' },
          { at },
        ),
  },
  zoom: alike(signers.zoom, { secretToken: 'zoom-secret' }),
  mercadopago: {
    options: { secret: 'mp-secret' },
    sign: (at) =>
      signers
        .mercadopago({ secret: 'mp-secret' })
        .event({ type: 'payment', data: { id: '42' } }, { at }),
  },
  braintree: {
    options: { publicKey: 'public', privateKey: 'private' },
    sign: (at) =>
      signers
        .braintree({ publicKey: 'public', privateKey: 'private' })
        .event({ kind: 'check' }, { at }),
  },
  mailgun: alike(signers.mailgun, { signingKey: 'mailgun-key' }),
  airwallex: alike(signers.airwallex, { secret: 'airwallex-secret' }),
  paypal: {
    options: { webhookId: 'WH-TABLE', fetchCertificate: async () => `${SIGNER}${INTERMEDIATE_CA}` },
    sign: (at) =>
      signers.paypal({ webhookId: 'WH-TABLE', privateKey: SIGNER_KEY }).event(EVENT, { at }),
  },
  dropboxSign: {
    options: { apiKey: 'dropbox-sign-key' },
    sign: (at) =>
      signers
        .dropboxSign({ apiKey: 'dropbox-sign-key' })
        .event('signature_request_sent', { account: { account_id: 'a' } }, { at }),
  },
};

/** The kit's delivery as the request an adapter hands the preset. */
const requestOf = (delivery: signers.Delivery): HttpRequest => ({
  method: delivery.method,
  url: delivery.path,
  headers: delivery.headers,
  rawBody: delivery.body,
  body: undefined,
  native: {},
});

const windowed = rows.flatMap((row) => {
  const seconds = /^(\d+)\b/.exec(row.window);
  return seconds ? [[row.preset, Number(seconds[1])] as const] : [];
});

it('signs a delivery for every preset whose row gives a window in seconds', () => {
  expect(windowed.map(([name]) => name).filter((name) => !(name in TIMED))).toEqual([]);
  expect(windowed.length).toBeGreaterThan(0);
});

it.each(windowed)(
  '%s: signed within %is of now it verifies, a second beyond (past or future) it is refused',
  async (name, seconds) => {
    const timed = TIMED[name]!;
    const preset = build(name, { ...timed.options, clock });
    const verifies = async (offsetSeconds: number) =>
      preset.verify!(requestOf(timed.sign(NOW + offsetSeconds * 1000)));
    expect({
      inside: await verifies(-(seconds - 1)),
      ahead: await verifies(seconds - 1),
      past: await verifies(-(seconds + 1)),
      future: await verifies(seconds + 1),
    }).toEqual({ inside: true, ahead: true, past: false, future: false });
  },
);

const YEAR_AND_MORE = 400 * 86_400;
const unchecked = rows.filter(
  (row) => row.window.startsWith('none') && !row.window.includes('signs no time'),
);

it('signs a delivery for every preset whose row says a signed time is not checked', () => {
  expect(unchecked.map((row) => row.preset).filter((name) => !(name in UNCHECKED))).toEqual([]);
  expect(unchecked.length).toBeGreaterThan(0);
});

it.each(unchecked.map((row) => [row.preset, row.window] as const))(
  '%s (%s): a delivery signed 400 days away from now verifies',
  async (name) => {
    const timed = UNCHECKED[name]!;
    const preset = build(name, { ...timed.options, clock });
    const verifies = async (offsetSeconds: number) =>
      preset.verify!(requestOf(timed.sign(NOW + offsetSeconds * 1000)));
    expect({ past: await verifies(-YEAR_AND_MORE), future: await verifies(YEAR_AND_MORE) }).toEqual(
      {
        past: true,
        future: true,
      },
    );
  },
);
