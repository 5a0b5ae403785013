/**
 * @module Signers of the providers that sign the raw body alone with an HMAC and carry the
 * delivery's id in a header or the body (GitHub, Shopify, Razorpay, Typeform, Checkout.com,
 * Vercel, Intercom, Coinbase Commerce, Lemon Squeezy, Paystack, Sentry, Bitbucket). Nothing
 * timed is signed: a retry is the same bytes, with the attempt counter the provider advances.
 */
import {
  bytesOf,
  forgedSecret,
  JSON_TYPE,
  mac,
  objectOf,
  optionsOf,
  placeOf,
  type Payload,
  type Secrets,
  secretsOf,
  text,
} from './common';
import {
  type Delivery,
  type DeliveryOptions,
  delivered,
  newId,
  type SignerOptions,
} from './delivery';

/** How one provider spells its signature header of the raw body. */
interface BodySignature {
  readonly header: string;
  readonly algorithm: 'sha1' | 'sha256' | 'sha512';
  readonly encoding: 'hex' | 'base64';
  readonly prefix?: string;
}

/** The signature headers of `body` under `secret`, one per scheme. */
const signaturesOf = (schemes: readonly BodySignature[], secret: string, body: Buffer) =>
  Object.fromEntries(
    schemes.map((scheme) => [
      scheme.header,
      (scheme.prefix ?? '') + mac(scheme.algorithm, secret, [body]).toString(scheme.encoding),
    ]),
  );

/**
 * The `event` method of a body-signed signer: `headersOf` adds the provider's other headers,
 * `advance` rewrites an object payload for its nth retry (an attempt counter).
 */
function bodySigned(
  name: string,
  options: SignerOptions,
  secret: string,
  scheme: BodySignature | readonly BodySignature[],
  advance?: (payload: Record<string, unknown>, retries: number) => Record<string, unknown>,
) {
  const { url, clock } = placeOf(name, options);
  const schemes = Array.isArray(scheme) ? scheme : [scheme as BodySignature];
  return (
    payload: Payload,
    delivery: DeliveryOptions & { readonly extra?: Record<string, string> } = {},
  ): Delivery => {
    const object = objectOf(payload);
    return delivered(clock, delivery, ({ forged, retries }) => {
      const body = bytesOf(advance && object && retries > 0 ? advance(object, retries) : payload);
      const key = forged ? forgedSecret(secret) : secret;
      return {
        url,
        body,
        headers: { ...JSON_TYPE, ...delivery.extra, ...signaturesOf(schemes, key, body) },
      };
    });
  };
}

/** Options of a signer whose provider signs with one secret. */
export interface SecretSignerOptions extends SignerOptions {
  /** The webhook's signing secret. */
  secret: string;
}

/** Options of one GitHub delivery. */
export interface GitHubDeliveryOptions extends DeliveryOptions {
  /** `X-GitHub-Event`. Defaults to `'push'`. */
  event?: string;
  /** `X-GitHub-Delivery`, kept by a redelivery. Defaults to a new GUID. */
  delivery?: string;
  /** `X-GitHub-Hook-ID`, sent when given. */
  hookId?: string | number;
}

/**
 * A fake GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (and the SHA-1
 * `X-Hub-Signature` GitHub also sends), `X-GitHub-Event`, `X-GitHub-Delivery`.
 */
export function github(options: SecretSignerOptions) {
  const secret = text('github', 'secret', optionsOf('github', options).secret);
  const event = bodySigned('github', options, secret, [
    { header: 'x-hub-signature-256', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' },
    { header: 'x-hub-signature', algorithm: 'sha1', encoding: 'hex', prefix: 'sha1=' },
  ]);
  return {
    event(payload: Payload, delivery: GitHubDeliveryOptions = {}): Delivery {
      const extra = {
        'user-agent': 'GitHub-Hookshot/kit',
        'x-github-event': delivery.event ?? 'push',
        'x-github-delivery': delivery.delivery ?? newId(),
        ...(delivery.hookId === undefined ? {} : { 'x-github-hook-id': String(delivery.hookId) }),
      };
      return event(payload, { ...delivery, extra });
    },
  };
}

/** Options of the {@link shopify} signer. */
export interface ShopifySignerOptions extends SignerOptions {
  /** The app's client secret (the first signs when several are given). */
  secret: Secrets;
  /** `X-Shopify-Shop-Domain`. Defaults to `'example.myshopify.com'`. */
  shop?: string;
}

/** Options of one Shopify delivery. */
export interface ShopifyDeliveryOptions extends DeliveryOptions {
  /** `X-Shopify-Topic`. Defaults to `'orders/create'`. */
  topic?: string;
  /** `X-Shopify-Webhook-Id`, kept by a retry. Defaults to a new one. */
  webhookId?: string;
  /** `X-Shopify-Event-Id`. Defaults to a new one. */
  eventId?: string;
}

/** A fake Shopify: `X-Shopify-Hmac-Sha256`, base64 HMAC-SHA256 of the body, and its id headers. */
export function shopify(options: ShopifySignerOptions) {
  const o = optionsOf('shopify', options);
  const [secret] = secretsOf('shopify', 'secret', o.secret);
  const shop = o.shop === undefined ? 'example.myshopify.com' : text('shopify', 'shop', o.shop);
  const event = bodySigned('shopify', options, secret!, {
    header: 'x-shopify-hmac-sha256',
    algorithm: 'sha256',
    encoding: 'base64',
  });
  return {
    event: (payload: Payload, delivery: ShopifyDeliveryOptions = {}): Delivery =>
      event(payload, {
        ...delivery,
        extra: {
          'x-shopify-topic': delivery.topic ?? 'orders/create',
          'x-shopify-shop-domain': shop,
          'x-shopify-webhook-id': delivery.webhookId ?? newId(),
          'x-shopify-event-id': delivery.eventId ?? newId(),
          'x-shopify-api-version': '2025-01',
        },
      }),
  };
}

/** Options of a delivery whose provider sends its id in a header. */
export interface IdDeliveryOptions extends DeliveryOptions {
  /** The delivery's id, kept by a retry. Defaults to a new one. */
  id?: string;
}

/** A signer whose provider puts the delivery id in `idHeader` (and fixed `headers`). */
function withIdHeader(
  name: string,
  options: SecretSignerOptions,
  scheme: BodySignature,
  idHeader: string,
  headers: Record<string, string> = {},
) {
  const secret = text(name, 'secret', optionsOf(name, options).secret);
  const event = bodySigned(name, options, secret, scheme);
  return {
    event: (payload: Payload, delivery: IdDeliveryOptions = {}): Delivery =>
      event(payload, { ...delivery, extra: { ...headers, [idHeader]: delivery.id ?? newId() } }),
  };
}

/** A fake Razorpay: `X-Razorpay-Signature`, hex HMAC-SHA256 of the body; the id in `X-Razorpay-Event-Id`. */
export function razorpay(options: SecretSignerOptions) {
  return withIdHeader(
    'razorpay',
    options,
    { header: 'x-razorpay-signature', algorithm: 'sha256', encoding: 'hex' },
    'x-razorpay-event-id',
  );
}

/** A fake Sentry integration: `Sentry-Hook-Signature`, hex HMAC-SHA256 of the body; the id in `Request-ID`. */
export function sentry(options: SignerOptions & { clientSecret: string }) {
  const secret = text('sentry', 'clientSecret', optionsOf('sentry', options).clientSecret);
  return withIdHeader(
    'sentry',
    { ...options, secret },
    { header: 'sentry-hook-signature', algorithm: 'sha256', encoding: 'hex' },
    'request-id',
    { 'sentry-hook-resource': 'issue' },
  );
}

/** A fake Bitbucket: `X-Hub-Signature: sha256=<hex>`; the id in `X-Request-UUID`. */
export function bitbucket(options: SecretSignerOptions) {
  return withIdHeader(
    'bitbucket',
    options,
    { header: 'x-hub-signature', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' },
    'x-request-uuid',
    { 'x-event-key': 'repo:push' },
  );
}

/** A signer whose provider keeps the id in the body: only the signature header. */
function bodyOnly(
  name: string,
  secret: string,
  options: SignerOptions,
  scheme: BodySignature,
  advance?: (payload: Record<string, unknown>, retries: number) => Record<string, unknown>,
) {
  const event = bodySigned(name, options, secret, scheme, advance);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery => event(payload, delivery),
  };
}

/** A fake Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`. */
export function typeform(options: SecretSignerOptions) {
  const secret = text('typeform', 'secret', optionsOf('typeform', options).secret);
  return bodyOnly('typeform', secret, options, {
    header: 'typeform-signature',
    algorithm: 'sha256',
    encoding: 'base64',
    prefix: 'sha256=',
  });
}

/** A fake Checkout.com: `Cko-Signature`, hex HMAC-SHA256 of the body. */
export function checkout(options: SecretSignerOptions) {
  const secret = text('checkout', 'secret', optionsOf('checkout', options).secret);
  return bodyOnly('checkout', secret, options, {
    header: 'cko-signature',
    algorithm: 'sha256',
    encoding: 'hex',
  });
}

/** A fake Vercel: `x-vercel-signature`, hex HMAC-SHA1 of the body. */
export function vercel(options: SecretSignerOptions) {
  const secret = text('vercel', 'secret', optionsOf('vercel', options).secret);
  return bodyOnly('vercel', secret, options, {
    header: 'x-vercel-signature',
    algorithm: 'sha1',
    encoding: 'hex',
  });
}

/** Adds `retries` to a numeric attempt counter of the payload, when it has one. */
const counting =
  (field: string) =>
  (payload: Record<string, unknown>, retries: number): Record<string, unknown> =>
    typeof payload[field] === 'number'
      ? { ...payload, [field]: (payload[field] as number) + retries }
      : payload;

/** A fake Intercom: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>`; a retry raises `delivery_attempts`. */
export function intercom(options: SecretSignerOptions) {
  const secret = text('intercom', 'secret', optionsOf('intercom', options).secret);
  return bodyOnly(
    'intercom',
    secret,
    options,
    { header: 'x-hub-signature', algorithm: 'sha1', encoding: 'hex', prefix: 'sha1=' },
    counting('delivery_attempts'),
  );
}

/** A fake Coinbase Commerce: `X-CC-Webhook-Signature`, hex HMAC-SHA256 of the body; a retry raises `attempt_number`. */
export function coinbase(options: SecretSignerOptions) {
  const secret = text('coinbase', 'secret', optionsOf('coinbase', options).secret);
  return bodyOnly(
    'coinbase',
    secret,
    options,
    { header: 'x-cc-webhook-signature', algorithm: 'sha256', encoding: 'hex' },
    counting('attempt_number'),
  );
}

/** A fake Lemon Squeezy: `X-Signature`, hex HMAC-SHA256 of the body. */
export function lemonsqueezy(options: SecretSignerOptions) {
  const secret = text('lemonsqueezy', 'secret', optionsOf('lemonsqueezy', options).secret);
  return bodyOnly('lemonsqueezy', secret, options, {
    header: 'x-signature',
    algorithm: 'sha256',
    encoding: 'hex',
  });
}

/** A fake Paystack: `x-paystack-signature`, hex HMAC-SHA512 of the body under your secret key. */
export function paystack(options: SignerOptions & { secretKey: string }) {
  const secret = text('paystack', 'secretKey', optionsOf('paystack', options).secretKey);
  return bodyOnly('paystack', secret, options, {
    header: 'x-paystack-signature',
    algorithm: 'sha512',
    encoding: 'hex',
  });
}
