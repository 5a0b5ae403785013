/**
 * The catalogue stays light: an app that imports one preset bundles that preset and the helpers
 * it uses, none of the others; core's guard bundles no preset at all. Checked by bundling with
 * esbuild (as a user's bundler would, honouring `"sideEffects": false`) and reading the output.
 */
import { build } from 'esbuild';

/** A string only each preset's own code contains. */
const MARKS: Record<string, string> = {
  stripe: 'stripe-signature',
  // Not its signature header: Meta's preset reads the same `x-hub-signature-256`.
  github: 'x-github-delivery',
  shopify: 'x-shopify-hmac-sha256',
  slack: 'x-slack-signature',
  paddle: 'paddle-signature',
  telegram: 'x-telegram-bot-api-secret-token',
  payme: 'Paycom',
  click: 'sign_string',
  razorpay: 'x-razorpay-signature',
  // Quoted: Telnyx's `telnyx-signature-ed25519` contains the bare name.
  discord: '"x-signature-ed25519"',
  twitch: 'twitch-eventsub-message-signature',
  gitlab: 'x-gitlab-token',
  square: 'x-square-hmacsha256-signature',
  typeform: 'typeform-signature',
  checkout: 'cko-signature',
  vercel: 'x-vercel-signature',
  intercom: 'sha1=',
  wise: 'x-delivery-id',
  paypal: 'paypal-transmission-sig',
  coinbase: 'x-cc-webhook-signature',
  lemonsqueezy: 'meta.event_name',
  // Quoted: Telnyx's `telnyx-timestamp` contains the bare name.
  airwallex: '"x-timestamp"',
  paystack: 'x-paystack-signature',
  calendly: 'calendly-webhook-signature',
  sentry: 'sentry-hook-signature',
  bitbucket: 'x-request-uuid',
  postmark: 'RecordType',
  hmac: 'signatureHeader',
  twilio: 'x-twilio-signature',
  linear: 'linear-signature',
  mercadopago: 'request-id:',
  zoom: 'x-zm-signature',
  braintree: 'bt_signature',
  mailgun: 'parent-signature',
  sendgrid: 'x-twilio-email-event-webhook-signature',
  hubspot: 'x-hubspot-signature-v3',
  adyen: 'hmacSignature',
  meta: 'hub.verify_token',
  // Signed tokens and public keys.
  telnyx: 'telnyx-signature-ed25519',
  qstash: 'upstash-signature',
  vonage: 'payload_hash',
  plaid: 'plaid-verification',
  cloudinary: 'x-cld-signature',
  dropboxSign: 'callback_test',
  tbank: 'PaymentId, Status and Amount',
  robokassa: 'SignatureValue',
  mandrill: 'x-mandrill-signature',
  pagerduty: 'x-pagerduty-signature',
  workos: 'workos-signature',
  elevenlabs: 'elevenlabs-signature',
  sanity: 'sanity-webhook-signature',
  mux: 'mux-signature',
  webflow: 'x-webflow-signature',
  recurly: 'recurly-signature',
  revolut: 'revolut-signature',
  persona: 'persona-signature',
  chargebee: 'chargebee',
  auth0: 'log_id',
  okta: 'x-okta-verification-challenge',
  microsoftGraph: 'validationToken',
  azureEventGrid: 'validationResponse',
  googleCalendar: 'x-goog-channel-token',
  line: 'x-line-signature',
  notion: 'x-notion-signature',
  woocommerce: 'x-wc-webhook-signature',
  gocardless: "the webhook endpoint's secret",
  viber: 'x-viber-content-signature',
};
/** Presets built on another part of the catalogue: these are `hmac()` configured. */
const BUILT_ON: Record<string, readonly string[]> = Object.fromEntries(
  [
    'checkout',
    'vercel',
    'intercom',
    'razorpay',
    'typeform',
    'square',
    'coinbase',
    'lemonsqueezy',
    'airwallex',
    'paystack',
    'sentry',
    'bitbucket',
    'linear',
    'zoom',
    'line',
    'notion',
    'woocommerce',
    'gocardless',
    'viber',
  ].map((name) => [name, ['hmac']]),
);

async function bundle(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: __dirname, loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    treeShaking: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('tree shaking', () => {
  it.each(Object.keys(MARKS))('importing %s alone bundles no other preset', async (name) => {
    const text = await bundle(
      `import { ${name} } from '@webhook-idempotency/providers'; console.log(${name});`,
    );
    expect(text).toContain(MARKS[name]);
    // What it is built on comes with it (and so it is built on it).
    for (const base of BUILT_ON[name] ?? []) expect(text).toContain(MARKS[base]);
    const others = Object.entries(MARKS).filter(
      ([other]) => other !== name && !BUILT_ON[name]?.includes(other),
    );
    expect(others.filter(([, mark]) => text.includes(mark)).map(([other]) => other)).toEqual([]);
  });

  it("core's guard bundles none of the catalogue", async () => {
    const text = await bundle(
      "import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core'; console.log(IdempotencyGuard, InMemoryStore);",
    );
    expect(text).toContain('IdempotencyGuard');
    expect(Object.values(MARKS).filter((mark) => text.includes(mark))).toEqual([]);
  });
});

/** The signers of the test kit: each passes its own name, as a string, to its option checks. */
const SIGNERS = [
  ...Object.keys(MARKS),
  'standardWebhooks',
  'clerk',
  'resend',
  'openai',
  'replicate',
  'stytch',
  'polar',
  'dodopayments',
  'supabaseAuthHooks',
];

describe('tree shaking of the test kit', () => {
  it.each(SIGNERS)(
    'importing the %s signer alone bundles no other signer and no preset',
    async (name) => {
      const text = await bundle(
        `import { ${name} } from '@webhook-idempotency/providers/testing'; console.log(${name});`,
      );
      expect(text).toContain(`"${name}"`);
      const others = SIGNERS.filter((other) => other !== name && text.includes(`"${other}"`));
      expect(others).toEqual([]);
      // A signer shares no code with the presets: no verifier, no constant-time comparison.
      expect(text).not.toMatch(/timingSafeEqual|safeVerify|function verify/);
    },
  );

  it('the whole kit brings no test client: supertest and Fastify are taken as arguments', async () => {
    const text = await bundle(
      "import * as kit from '@webhook-idempotency/providers/testing'; console.log(kit);",
    );
    expect(text).toContain('x-twilio-signature');
    expect(text).not.toMatch(/["'](supertest|fastify|light-my-request|express)["']/);
  });
});
