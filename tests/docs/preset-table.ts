/**
 * The table "Every preset at a glance" of docs/providers.md, read into rows, and the package it
 * describes: every preset factory `@webhook-idempotency/providers` exports, built from the minimal
 * valid options below, and the preset tests that judge them. Shared by the tests of the table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderPreset } from '../../packages/core/src';
// The package's entry (its `exports['.']`), as the tests of tests/runtimes reach packages.
import * as providers from '../../packages/providers/src';

export const root = join(__dirname, '..', '..');
export const read = (path: string) => readFileSync(join(root, path), 'utf8');
export const page = read('docs/providers.md');
export const manifest = JSON.parse(read('packages/providers/package.json')) as {
  devDependencies: Record<string, string>;
  exports: Record<string, string>;
};
const testDir = 'packages/providers/test';
export const presetTests = readdirSync(join(root, testDir))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => ({ name, text: read(`${testDir}/${name}`) }));

const HEX_32_BYTES = '0'.repeat(64);
const SVIX_SECRET = 'whsec_c2VjcmV0';
/** SendGrid's published verification key (a P-256 public key, base64 DER). */
const SENDGRID_KEY =
  'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g==';

/** Minimal valid options of every preset factory the package exports. */
export const OPTIONS: Record<string, object> = {
  payme: { password: 'cash-desk-key' },
  click: { secretKey: 'secret' },
  uzum: { username: 'user', password: 'pass' },
  stripe: { secret: 'whsec_x' },
  github: { secret: 'x' },
  telegram: { botId: 1, secretToken: 'token' },
  shopify: { secret: 'x' },
  standardWebhooks: { secret: SVIX_SECRET },
  slack: { signingSecret: 'x' },
  paddle: { secret: 'x' },
  clerk: { secret: SVIX_SECRET },
  resend: { secret: SVIX_SECRET },
  razorpay: { secret: 'x' },
  discord: { publicKey: HEX_32_BYTES },
  twitch: { secret: 'a-subscription-secret' },
  gitlab: { secretToken: 'token' },
  square: { signatureKey: 'k', notificationUrl: 'https://example.com/webhooks/square' },
  typeform: { secret: 'x' },
  checkout: { secret: 'x' },
  vercel: { secret: 'x' },
  intercom: { secret: 'x' },
  twilio: { authToken: 'token', baseUrl: 'https://example.com' },
  linear: { secret: 'x' },
  mercadopago: { secret: 'x' },
  zoom: { secretToken: 'x' },
  braintree: { publicKey: 'public', privateKey: 'private' },
  mailgun: { signingKey: 'x' },
  wise: {},
  paypal: { webhookId: 'W', fetchCertificate: async () => '' },
  coinbase: { secret: 'x' },
  lemonsqueezy: { secret: 'x' },
  airwallex: { secret: 'x' },
  paystack: { secretKey: 'x' },
  calendly: { signingKey: 'x' },
  sentry: { clientSecret: 'x' },
  bitbucket: { secret: 'x' },
  postmark: { username: 'u', password: 'p' },
  sendgrid: { publicKey: SENDGRID_KEY },
  hubspot: { clientSecret: 'x', targetUrl: 'https://example.com/webhooks/hubspot' },
  adyen: { hmacKey: HEX_32_BYTES },
  meta: { appSecret: 'x', verifyToken: 'token' },
  cloudinary: { apiSecret: 'x' },
  dropboxSign: { apiKey: 'x' },
  tbank: { password: 'x' },
  robokassa: { password2: 'x' },
  mandrill: { webhookKey: 'x', webhookUrl: 'https://example.com/webhooks/mandrill' },
  pagerduty: { secret: 'x' },
  openai: { secret: SVIX_SECRET },
  replicate: { secret: SVIX_SECRET },
  stytch: { secret: SVIX_SECRET },
  polar: { secret: SVIX_SECRET },
  dodopayments: { secret: SVIX_SECRET },
  supabaseAuthHooks: { secret: SVIX_SECRET },
  workos: { secret: 'x' },
  elevenlabs: { secret: 'x' },
  sanity: { secret: 'x' },
  mux: { secret: 'x' },
  webflow: { secret: 'x' },
  recurly: { secret: 'x' },
  revolut: { signingSecret: 'x' },
  persona: { secret: 'x' },
  chargebee: { username: 'u', password: 'p' },
  auth0: { authorization: 'Bearer token' },
  okta: { secret: 'x' },
  microsoftGraph: { clientState: 'x' },
  azureEventGrid: { secret: 'x' },
  googleCalendar: { token: 'x' },
  line: { channelSecret: 'x' },
  notion: { verificationToken: 'x' },
  woocommerce: { secret: 'x' },
  gocardless: { secret: 'x' },
  viber: { authToken: 'x' },
  hmac: { provider: 'acme', secret: 's', signatureHeader: 'x-sig', key: 'x-id', retentionDays: 7 },
  // Signed tokens and public keys.
  telnyx: { publicKey: Buffer.alloc(32, 7).toString('base64') },
  qstash: { signingKey: 'sig_x', url: 'https://example.com/api/qstash' },
  vonage: { signatureSecret: 'x' },
  plaid: { fetchKey: async () => undefined },
};

type Factory = (options: object) => ProviderPreset;
/** Every function the package exports: its preset factories (its constants are not functions). */
export const factories = new Map(
  Object.entries(providers)
    .filter(([, value]) => typeof value === 'function')
    .map(([name, value]) => [name, value as unknown as Factory]),
);
export const build = (name: string, extra: object = {}) =>
  factories.get(name)!({ ...OPTIONS[name], ...extra });

export interface Row {
  preset: string;
  anchor: string;
  judgedBy: string;
  window: string;
  retention: string;
  handshake: string;
  batch: string;
  types: string;
}

/** The lines of the section `## <title>`, up to the next `## `. */
function section(title: string): string[] {
  const start = page.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`docs/providers.md has no section "## ${title}"`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end === -1 ? undefined : end).split('\n');
}

/** A table line's cells, trimmed (a `\|` stays inside its cell). */
const cells = (line: string) =>
  line
    .slice(1, line.trimEnd().length - 1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** The rows of the table, each cell found by its column's heading. */
function tableRows(): Row[] {
  const lines = section('Every preset at a glance').filter((line) => line.startsWith('|'));
  const heads = cells(lines[0]!);
  const column = (name: string) => {
    const index = heads.findIndex((head) => head.startsWith(name));
    if (index === -1) throw new Error(`the table has no column "${name}"`);
    return index;
  };
  const at = {
    preset: column('Preset'),
    judgedBy: column('Judged by'),
    window: column('Freshness window'),
    retention: column('Retention'),
    handshake: column('Handshake'),
    batch: column('Batch'),
    types: column('Event types'),
  };
  return lines.slice(2).map((line) => {
    const row = cells(line);
    const link = /^\[`(\w+)`\]\(#([\w-]+)\)$/.exec(row[at.preset]!);
    return {
      preset: link?.[1] ?? row[at.preset]!,
      anchor: link?.[2] ?? '',
      judgedBy: row[at.judgedBy]!,
      window: row[at.window]!,
      retention: row[at.retention]!,
      handshake: row[at.handshake]!,
      batch: row[at.batch]!,
      types: row[at.types]!,
    };
  });
}
export const rows = tableRows();
