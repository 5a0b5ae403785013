/**
 * Every sample of the presets wired beyond the first seven, each with the credential flags its
 * preset takes, is accepted by that preset: an Express app on a real port with each preset on a
 * SQLite file store, the command (helpers/cli.ts) sending each sample with `--retry`; the handler runs
 * once and both answers are 200. (send-families.test.ts covers Discord, Square, Postmark, HubSpot
 * and Standard Webhooks; PayPal needs a certificate its preset fetches, not made here.)
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { cli } from './helpers/cli';
import { type PresetApp, startPresetApp } from './helpers/preset-app';

const WHSEC = `whsec_${Buffer.from('clerk-and-resend-secret-32-bytes').toString('base64')}`;
const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'send-every-'));
/** A private key PEM file for `--key-file`, and its public key. */
function keyPair(name: string, made: ReturnType<typeof generateKeyPairSync>) {
  const file = join(dir, `${name}.pem`);
  writeFileSync(file, made.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return { file, publicKey: made.publicKey };
}
const sendgridKey = keyPair('sendgrid', generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
const wiseKey = keyPair('wise', generateKeyPairSync('rsa', { modulusLength: 2048 }));
const telnyxKey = keyPair('telnyx', generateKeyPairSync('ed25519'));
const plaidPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const plaidKey = { ...keyPair('plaid', plaidPair), privateKey: plaidPair.privateKey };

/** Each preset's options and the flags `send` is given for it. */
const CASES: Record<string, { preset: () => unknown; flags: string[] }> = {
  clerk: { preset: () => providers.clerk({ secret: WHSEC }), flags: ['--secret', WHSEC] },
  resend: { preset: () => providers.resend({ secret: WHSEC }), flags: ['--secret', WHSEC] },
  paddle: {
    preset: () => providers.paddle({ secret: 'pdl-secret' }),
    flags: ['--secret', 'pdl-secret'],
  },
  calendly: {
    preset: () => providers.calendly({ signingKey: 'cal-key' }),
    flags: ['--secret', 'cal-key'],
  },
  airwallex: {
    preset: () => providers.airwallex({ secret: 'awx-secret' }),
    flags: ['--secret', 'awx-secret'],
  },
  paystack: {
    preset: () => providers.paystack({ secretKey: 'sk_test_1' }),
    flags: ['--secret', 'sk_test_1'],
  },
  sentry: {
    preset: () => providers.sentry({ clientSecret: 'sentry-cs' }),
    flags: ['--secret', 'sentry-cs'],
  },
  linear: {
    preset: () => providers.linear({ secret: 'lin-secret' }),
    flags: ['--secret', 'lin-secret'],
  },
  zoom: {
    preset: () => providers.zoom({ secretToken: 'zoom-token' }),
    flags: ['--secret', 'zoom-token'],
  },
  twitch: {
    preset: () => providers.twitch({ secret: 'twitch-secret-123' }),
    flags: ['--secret', 'twitch-secret-123'],
  },
  mailgun: {
    preset: () => providers.mailgun({ signingKey: 'mg-key' }),
    flags: ['--secret', 'mg-key'],
  },
  sendgrid: {
    preset: () =>
      providers.sendgrid({
        publicKey: String(sendgridKey.publicKey.export({ format: 'pem', type: 'spki' })),
      }),
    flags: ['--key-file', sendgridKey.file],
  },
  wise: {
    preset: () =>
      providers.wise({
        publicKey: String(wiseKey.publicKey.export({ format: 'pem', type: 'spki' })),
      }),
    flags: ['--key-file', wiseKey.file],
  },
  braintree: {
    preset: () => providers.braintree({ publicKey: 'bt-public', privateKey: 'bt-private' }),
    flags: ['--public-key', 'bt-public', '--secret', 'bt-private'],
  },
  twilio: {
    preset: () =>
      providers.twilio({ authToken: 'tw-token', baseUrl: base.replace(/\/webhooks$/, '') }),
    flags: ['--secret', 'tw-token'],
  },
  mercadopago: {
    preset: () => providers.mercadopago({ secret: 'mp-secret' }),
    flags: ['--secret', 'mp-secret'],
  },
  adyen: {
    preset: () => providers.adyen({ hmacKey: '44782DEF547AAA06C910C43932B1EB0C' }),
    flags: ['--secret', '44782DEF547AAA06C910C43932B1EB0C'],
  },
  meta: {
    preset: () => providers.meta({ appSecret: 'meta-secret' }),
    flags: ['--secret', 'meta-secret'],
  },
  hmac: {
    preset: () =>
      providers.hmac({
        retentionDays: 7,
        provider: 'acme',
        secret: 'hmac-secret',
        signatureHeader: 'x-signature',
        key: 'x-webhook-id',
      }),
    flags: ['--secret', 'hmac-secret'],
  },
  // Signed tokens and public keys.
  telnyx: {
    preset: () =>
      providers.telnyx({
        publicKey: telnyxKey.publicKey
          .export({ format: 'der', type: 'spki' })
          .subarray(-32)
          .toString('base64'),
      }),
    flags: ['--key-file', telnyxKey.file],
  },
  qstash: {
    preset: () => providers.qstash({ signingKey: 'sig_send', url: `${base}/qstash` }),
    flags: ['--secret', 'sig_send'],
  },
  vonage: {
    preset: () => providers.vonage({ signatureSecret: 'vonage-send' }),
    flags: ['--secret', 'vonage-send'],
  },
  plaid: {
    // The kit's key id, and the key of the PEM file, as the user's fetchKey would answer.
    preset: () =>
      providers.plaid({ fetchKey: signers.plaid({ privateKey: plaidKey.privateKey }).fetchKey }),
    flags: ['--key-file', plaidKey.file],
  },
  // The second round: Standard Webhooks senders, static secrets, field-signed providers.
  openai: { preset: () => providers.openai({ secret: WHSEC }), flags: ['--secret', WHSEC] },
  replicate: { preset: () => providers.replicate({ secret: WHSEC }), flags: ['--secret', WHSEC] },
  stytch: { preset: () => providers.stytch({ secret: WHSEC }), flags: ['--secret', WHSEC] },
  polar: {
    preset: () => providers.polar({ secret: 'polar-secret' }),
    flags: ['--secret', 'polar-secret'],
  },
  dodopayments: {
    preset: () => providers.dodopayments({ secret: WHSEC }),
    flags: ['--secret', WHSEC],
  },
  supabaseAuthHooks: {
    preset: () => providers.supabaseAuthHooks({ secret: `v1,${WHSEC}` }),
    flags: ['--secret', `v1,${WHSEC}`],
  },
  chargebee: {
    preset: () => providers.chargebee({ username: 'chargebee', password: 'cb-pass' }),
    flags: ['--username', 'chargebee', '--password', 'cb-pass'],
  },
  auth0: {
    preset: () => providers.auth0({ authorization: 'auth0-token' }),
    flags: ['--secret', 'auth0-token'],
  },
  okta: {
    preset: () => providers.okta({ secret: 'okta-secret' }),
    flags: ['--secret', 'okta-secret'],
  },
  microsoftGraph: {
    preset: () => providers.microsoftGraph({ clientState: 'graph-state' }),
    flags: ['--secret', 'graph-state'],
  },
  azureEventGrid: {
    preset: () => providers.azureEventGrid({ secret: 'aeg-secret' }),
    flags: ['--secret', 'aeg-secret'],
  },
  googleCalendar: {
    preset: () => providers.googleCalendar({ token: 'gcal-token' }),
    flags: ['--secret', 'gcal-token'],
  },
  cloudinary: {
    preset: () => providers.cloudinary({ apiSecret: 'cld-secret' }),
    flags: ['--secret', 'cld-secret'],
  },
  dropboxSign: {
    preset: () => providers.dropboxSign({ apiKey: 'dbx-key' }),
    flags: ['--secret', 'dbx-key'],
  },
  tbank: { preset: () => providers.tbank({ password: 'tb-pass' }), flags: ['--secret', 'tb-pass'] },
  robokassa: {
    preset: () => providers.robokassa({ password2: 'rk-pass2' }),
    flags: ['--secret', 'rk-pass2'],
  },
  mandrill: {
    preset: () => providers.mandrill({ webhookKey: 'md-key', webhookUrl: `${base}/mandrill` }),
    flags: ['--secret', 'md-key'],
  },
  pagerduty: {
    preset: () => providers.pagerduty({ secret: 'pd-secret' }),
    flags: ['--secret', 'pd-secret'],
  },
};

let app: PresetApp;
let base: string;

beforeAll(async () => {
  app = await startPresetApp('send-every-sample');
  base = app.base;
  for (const [name, { preset }] of Object.entries(CASES)) app.add(name, preset());
});
afterAll(() => app.close());

it.each(Object.keys(CASES))(
  '%s: its sample is accepted and runs its handler once',
  async (name) => {
    const sent = await cli([
      'send',
      name,
      `${base}/${name}`,
      ...CASES[name]!.flags,
      '--retry',
      '--json',
    ]);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    const { answers } = JSON.parse(sent.stdout);
    expect(answers.map((a: { status: number }) => a.status)).toEqual([200, 200]);
    expect(app.runs.get(name)).toBe(1);
  },
);
