/**
 * @module Signers of the providers that sign a timestamp with the raw body (Stripe, Slack,
 * Paddle, Calendly, Standard Webhooks and its senders Clerk and Resend, Airwallex): a retry is
 * signed anew at its own time, as these providers sign every attempt.
 */
import {
  bytesOf,
  forgedSecret,
  JSON_TYPE,
  jsonPost,
  mac,
  optionsOf,
  placeOf,
  type Payload,
  type Secrets,
  secretsOf,
  seconds,
  text,
} from './common';
import {
  type Delivery,
  type DeliveryOptions,
  delivered,
  asHandshake,
  type Handshake,
  newId,
  type SignerOptions,
} from './delivery';

/** Signs a payload with `signature(body, at, secrets)` at each attempt: the common shape of these signers. */
function timestamped(
  name: string,
  options: SignerOptions,
  secrets: readonly string[],
  headersOf: (
    body: Buffer,
    at: number,
    secrets: readonly string[],
    retries: number,
  ) => Record<string, string>,
) {
  const { url, clock } = placeOf(name, options);
  return (payload: Payload, delivery?: DeliveryOptions): Delivery => {
    const body = bytesOf(payload);
    return delivered(clock, delivery, ({ at, forged, retries }) => ({
      url,
      body,
      headers: {
        ...JSON_TYPE,
        ...headersOf(body, at, forged ? secrets.map(forgedSecret) : secrets, retries),
      },
    }));
  };
}

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
  return {
    event: timestamped('stripe', options, secrets, (body, at, keys) => {
      const t = seconds(at);
      const v1 = keys.map((key) => `v1=${mac('sha256', key, [`${t}.`, body]).toString('hex')}`);
      return { 'stripe-signature': [`t=${t}`, ...v1].join(',') };
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
  const secret = text('slack', 'signingSecret', optionsOf('slack', options).signingSecret);
  const event = timestamped('slack', options, [secret], (body, at, [key], retries) => ({
    'x-slack-request-timestamp': String(seconds(at)),
    'x-slack-signature': `v0=${mac('sha256', key!, [`v0:${seconds(at)}:`, body]).toString('hex')}`,
    ...(retries > 0
      ? { 'x-slack-retry-num': String(retries), 'x-slack-retry-reason': 'http_timeout' }
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
  const secret = text('paddle', 'secret', optionsOf('paddle', options).secret);
  return {
    event: timestamped('paddle', options, [secret], (body, at, [key]) => ({
      'paddle-signature': `ts=${seconds(at)};h1=${mac('sha256', key!, [`${seconds(at)}:`, body]).toString('hex')}`,
    })),
  };
}

/** Options of the {@link calendly} signer. */
export interface CalendlySignerOptions extends SignerOptions {
  /** The webhook subscription's signing key. */
  signingKey: string;
}

/** A fake Calendly: `Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function calendly(options: CalendlySignerOptions) {
  const key = text('calendly', 'signingKey', optionsOf('calendly', options).signingKey);
  return {
    event: timestamped('calendly', options, [key], (body, at, [secret]) => ({
      'calendly-webhook-signature': `t=${seconds(at)},v1=${mac('sha256', secret!, [`${seconds(at)}.`, body]).toString('hex')}`,
    })),
  };
}

/** Options of the {@link airwallex} signer. */
export interface AirwallexSignerOptions extends SignerOptions {
  /** The webhook's secret. */
  secret: string;
}

/** A fake Airwallex: `x-timestamp` in milliseconds and `x-signature`, hex HMAC-SHA256 of timestamp + body. */
export function airwallex(options: AirwallexSignerOptions) {
  const secret = text('airwallex', 'secret', optionsOf('airwallex', options).secret);
  return {
    event: timestamped('airwallex', options, [secret], (body, at, [key]) => ({
      'x-timestamp': String(Math.floor(at)),
      'x-signature': mac('sha256', key!, [String(Math.floor(at)), body]).toString('hex'),
    })),
  };
}

/** Options of the {@link standardWebhooks} signer and of Clerk's and Resend's. */
export interface StandardWebhooksSignerOptions extends SignerOptions {
  /** The endpoint secret, `whsec_` and base64; several sign one `v1,` each, as on rotation. */
  secret: Secrets;
}

/** Options of one Standard Webhooks delivery. */
export interface StandardWebhooksDeliveryOptions extends DeliveryOptions {
  /** The message id (`msg_…`), kept by every retry. Defaults to a new one. */
  id?: string;
}

function svixSigner(
  name: string,
  prefix: 'webhook' | 'svix',
  options: StandardWebhooksSignerOptions,
) {
  const secrets = secretsOf(name, 'secret', optionsOf(name, options).secret);
  const keys = secrets.map((secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
  const forgedKeys = keys.map((key) => Buffer.concat([Buffer.from('forged'), key]));
  const { url, clock } = placeOf(name, options);
  return {
    event(payload: Payload, delivery: StandardWebhooksDeliveryOptions = {}): Delivery {
      const body = bytesOf(payload);
      const id = delivery.id ?? `msg_${newId().replaceAll('-', '')}`;
      return delivered(clock, delivery, ({ at, forged }) => {
        const t = seconds(at);
        const signatures = (forged ? forgedKeys : keys).map(
          (key) => `v1,${mac('sha256', key, [`${id}.${t}.`, body]).toString('base64')}`,
        );
        return jsonPost(url, body, {
          [`${prefix}-id`]: id,
          [`${prefix}-timestamp`]: String(t),
          [`${prefix}-signature`]: signatures.join(' '),
        });
      });
    },
  };
}

/**
 * A fake Standard Webhooks sender: `webhook-id`, `webhook-timestamp`, and `webhook-signature`
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the decoded secret; a retry keeps the id
 * and is signed at its own time.
 */
export function standardWebhooks(options: StandardWebhooksSignerOptions) {
  return svixSigner('standardWebhooks', 'webhook', options);
}

/** A fake Clerk: Svix's scheme with `svix-` headers. */
export function clerk(options: StandardWebhooksSignerOptions) {
  return svixSigner('clerk', 'svix', options);
}

/** A fake Resend: Svix's scheme with `svix-` headers. */
export function resend(options: StandardWebhooksSignerOptions) {
  return svixSigner('resend', 'svix', options);
}
