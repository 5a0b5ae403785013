/**
 * @module Signers of the providers that sign a timestamp with the raw body (Stripe, Slack,
 * Paddle, Calendly, Standard Webhooks and its senders Clerk and Resend, Airwallex): a retry is
 * signed anew at its own time, as these providers sign every attempt.
 */
import { mac, optionsOf, type Payload, type Secrets, secretsOf, seconds } from './common';
import { asHandshake, newId } from './delivery';
import type { Delivery, DeliveryOptions, Handshake, SignerOptions } from './delivery';
import { type HeadersOf, keyedSigner, type Signing, secretSigner, signedEvents } from './post';

/** What a provider signs before the body, given the time in Unix seconds. */
type Before = (t: number) => string;

/** The hex HMAC-SHA256 of `before(t)` then the body, and the time `t` (Unix seconds) it signs. */
function stampedHex({ body, at, key }: Pick<Signing, 'body' | 'at' | 'key'>, before: Before) {
  const t = seconds(at);
  return { t, hex: mac('sha256', key, [before(t), body]).toString('hex') };
}

/** The signature header `header` of a provider that signs `before(t)` then the body, spelled by `spell`. */
export const stampedHeader =
  (header: string, before: Before, spell: (t: number, hex: string) => string): HeadersOf =>
  (signing) => {
    const { t, hex } = stampedHex(signing, before);
    return { [header]: spell(t, hex) };
  };

/** `<header>: v0=<hex HMAC-SHA256 of "v0:<unix seconds>:<body>">`, as Slack and Zoom sign. */
export const v0Signature = (header: string): HeadersOf =>
  stampedHeader(
    header,
    (t) => `v0:${t}:`,
    (_t, hex) => `v0=${hex}`,
  );

/** Options of the {@link stripe} signer. */
export interface StripeSignerOptions extends SignerOptions {
  /** The endpoint secret (`whsec_…`); several sign one `v1` each, as Stripe does while you roll it. */
  secret: Secrets;
}

/**
 * A fake Stripe: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, signed anew on
 * every retry.
 * @example
 * const delivery = stripe({ secret }).event({ id: 'evt_1', type: 'payment_intent.succeeded' });
 */
export function stripe(options: StripeSignerOptions) {
  const secrets = secretsOf('stripe', 'secret', optionsOf('stripe', options).secret);
  const { post } = secretSigner('stripe', options, secrets);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, at, keys }) => {
        const signed = keys.map((key) => stampedHex({ body, at, key }, (t) => `${t}.`));
        const v1 = signed.map(({ hex }) => `v1=${hex}`);
        return { 'stripe-signature': [`t=${seconds(at)}`, ...v1].join(',') };
      }),
  };
}

/** Options of the {@link slack} signer. */
export interface SlackSignerOptions extends SignerOptions {
  /** The app's signing secret. */
  signingSecret: string;
}

/**
 * A fake Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:ts:body">` with
 * `X-Slack-Request-Timestamp`; a retry carries `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`.
 * `urlVerification()` is the `url_verification` request, whose challenge your route echoes.
 */
export function slack(options: SlackSignerOptions) {
  const signature = v0Signature('x-slack-signature');
  const { event } = signedEvents('slack', options, 'signingSecret', (signing) => ({
    'x-slack-request-timestamp': String(seconds(signing.at)),
    ...signature(signing),
    ...(signing.retries > 0
      ? { 'x-slack-retry-num': String(signing.retries), 'x-slack-retry-reason': 'http_timeout' }
      : {}),
  }));
  return {
    event,
    urlVerification(challenge = newId(), delivery?: DeliveryOptions): Handshake {
      const made = event({ token: 'kit', challenge, type: 'url_verification' }, delivery);
      return asHandshake(made, challenge);
    },
  };
}

/** Options of the {@link paddle} signer. */
export interface PaddleSignerOptions extends SignerOptions {
  /** The notification destination's secret key. */
  secret: string;
}

/** A fake Paddle Billing: `Paddle-Signature: ts=<unix>;h1=<hex HMAC-SHA256 of "ts:body">`. */
export function paddle(options: PaddleSignerOptions) {
  const spell = (t: number, hex: string) => `ts=${t};h1=${hex}`;
  return signedEvents(
    'paddle',
    options,
    'secret',
    stampedHeader('paddle-signature', (t) => `${t}:`, spell),
  );
}

/** Options of the {@link calendly} signer. */
export interface CalendlySignerOptions extends SignerOptions {
  /** The webhook subscription's signing key. */
  signingKey: string;
}

/** A fake Calendly: `Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function calendly(options: CalendlySignerOptions) {
  const signature = stampedHeader(
    'calendly-webhook-signature',
    (t) => `${t}.`,
    (t, hex) => `t=${t},v1=${hex}`,
  );
  return signedEvents('calendly', options, 'signingKey', signature);
}

/** Options of the {@link airwallex} signer. */
export interface AirwallexSignerOptions extends SignerOptions {
  /** The webhook's secret. */
  secret: string;
}

/** A fake Airwallex: `x-timestamp` in milliseconds and `x-signature`, hex HMAC-SHA256 of timestamp + body. */
export function airwallex(options: AirwallexSignerOptions) {
  return signedEvents('airwallex', options, 'secret', ({ body, at, key }) => ({
    'x-timestamp': String(Math.floor(at)),
    'x-signature': mac('sha256', key, [String(Math.floor(at)), body]).toString('hex'),
  }));
}

/** Options of the {@link standardWebhooks} signer and of Clerk's and Resend's. */
export interface StandardWebhooksSignerOptions extends SignerOptions {
  /** The endpoint secret, `whsec_` and base64; several sign one `v1,` each, as on rotation. */
  secret: Secrets;
}

/** How a sender makes the HMAC key of a secret: the base64 after `whsec_`, or its UTF-8 bytes. */
type KeyOf = (secret: string) => Buffer;
const base64Key: KeyOf = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/** Options of one Standard Webhooks delivery. */
export interface StandardWebhooksDeliveryOptions extends DeliveryOptions {
  /** The message id (`msg_…`), kept by every retry. Defaults to a new one. */
  id?: string;
}

/**
 * The fake of one sender of the Standard Webhooks scheme: its name (in errors), its headers'
 * prefix and how it keys its HMAC; the signers below are this, each under its sender's name.
 */
function svixSender(name: string, prefix: 'webhook' | 'svix', keyOf: KeyOf = base64Key) {
  return (options: StandardWebhooksSignerOptions) => {
    const secrets = secretsOf(name, 'secret', optionsOf(name, options).secret);
    const keys = secrets.map(keyOf);
    const forgedKeys = keys.map((key) => Buffer.concat([Buffer.from('forged'), key]));
    const { post } = keyedSigner(name, options, keys, () => forgedKeys);
    return {
      event(payload: Payload, delivery: StandardWebhooksDeliveryOptions = {}): Delivery {
        const id = delivery.id ?? `msg_${newId().replaceAll('-', '')}`;
        return post(payload, delivery, ({ body, at, keys }) => {
          const t = seconds(at);
          const signatures = keys.map(
            (key) => `v1,${mac('sha256', key, [`${id}.${t}.`, body]).toString('base64')}`,
          );
          return {
            [`${prefix}-id`]: id,
            [`${prefix}-timestamp`]: String(t),
            [`${prefix}-signature`]: signatures.join(' '),
          };
        });
      },
    };
  };
}

/**
 * A fake Standard Webhooks sender: `webhook-id`, `webhook-timestamp`, and `webhook-signature`
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the decoded secret; a retry keeps the id
 * and is signed at its own time.
 */
export const standardWebhooks = /* @__PURE__ */ svixSender('standardWebhooks', 'webhook');

/** A fake Clerk: Svix's scheme with `svix-` headers. */
export const clerk = /* @__PURE__ */ svixSender('clerk', 'svix');

/** A fake Resend: Svix's scheme with `svix-` headers. */
export const resend = /* @__PURE__ */ svixSender('resend', 'svix');

/** A fake OpenAI: the Standard Webhooks scheme with `webhook-` headers. */
export const openai = /* @__PURE__ */ svixSender('openai', 'webhook');

/** A fake Replicate: the Standard Webhooks scheme with `webhook-` headers. */
export const replicate = /* @__PURE__ */ svixSender('replicate', 'webhook');

/** A fake Stytch: Svix's scheme with `svix-` headers. */
export const stytch = /* @__PURE__ */ svixSender('stytch', 'svix');

/** A fake Polar: `webhook-` headers, the HMAC keyed with the secret's own UTF-8 bytes. */
export const polar = /* @__PURE__ */ svixSender('polar', 'webhook', (secret) =>
  Buffer.from(secret, 'utf8'),
);

/** A fake Dodo Payments: the Standard Webhooks scheme with `webhook-` headers. */
export const dodopayments = /* @__PURE__ */ svixSender('dodopayments', 'webhook');

/** A fake Supabase Auth hook: `webhook-` headers, its `v1,whsec_…` secret read without the `v1,`. */
export const supabaseAuthHooks = /* @__PURE__ */ svixSender(
  'supabaseAuthHooks',
  'webhook',
  (secret) => base64Key(secret.replace(/^v1,/, '')),
);
