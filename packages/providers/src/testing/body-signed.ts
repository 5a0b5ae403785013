/**
 * @module Signers of the providers that sign the raw body alone with an HMAC and carry the
 * delivery's id in a header or the body (GitHub, Shopify, Razorpay, Typeform, Checkout.com,
 * Vercel, Intercom, Coinbase Commerce, Lemon Squeezy, Paystack, Sentry, Bitbucket). Nothing
 * timed is signed: a retry is the same bytes, with the attempt counter the provider advances.
 */
import { mac, objectOf, optionsOf, type Payload, type Secrets, secretsOf, text } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { secretOption, secretSigner } from './post';

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

/** Rewrites an object payload for its nth retry (an attempt counter the provider advances). */
type Advance = (payload: Record<string, unknown>, retries: number) => Record<string, unknown>;

/**
 * The `event` method of a body-signed signer: `delivery.extra` adds the provider's other headers,
 * `advance` rewrites an object payload for its nth retry.
 */
function bodySigned(
  name: string,
  options: SignerOptions,
  secret: string,
  scheme: BodySignature | readonly BodySignature[],
  advance?: Advance,
) {
  const { post } = secretSigner(name, options, secret);
  const schemes = Array.isArray(scheme) ? scheme : [scheme as BodySignature];
  return (
    payload: Payload,
    delivery: DeliveryOptions & { readonly extra?: Record<string, string> } = {},
  ): Delivery => {
    const object = objectOf(payload);
    const bodyOf = ({ retries }: { retries: number }) =>
      advance && object && retries > 0 ? advance(object, retries) : payload;
    return post(bodyOf, delivery, ({ body, key }) => ({
      ...delivery.extra,
      ...signaturesOf(schemes, key, body),
    }));
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
  const secret = secretOption('github', options, 'secret');
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
  const secret = secretOption(name, options, 'secret');
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
  const secret = secretOption('sentry', options, 'clientSecret');
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

/** Adds `retries` to a numeric attempt counter of the payload, when it has one. */
const counting =
  (field: string): Advance =>
  (payload, retries) =>
    typeof payload[field] === 'number'
      ? { ...payload, [field]: (payload[field] as number) + retries }
      : payload;

/** A provider that keeps the id in the body: its secret's option, its signature, its retry counter. */
interface BodyOnly extends BodySignature {
  readonly option?: 'secret' | 'secretKey';
  /** The payload's attempt counter a retry raises. */
  readonly counter?: string;
}

/** The body-only providers, each a row. */
const BODY_ONLY = {
  typeform: {
    header: 'typeform-signature',
    algorithm: 'sha256',
    encoding: 'base64',
    prefix: 'sha256=',
  },
  checkout: { header: 'cko-signature', algorithm: 'sha256', encoding: 'hex' },
  vercel: { header: 'x-vercel-signature', algorithm: 'sha1', encoding: 'hex' },
  intercom: {
    header: 'x-hub-signature',
    algorithm: 'sha1',
    encoding: 'hex',
    prefix: 'sha1=',
    counter: 'delivery_attempts',
  },
  coinbase: {
    header: 'x-cc-webhook-signature',
    algorithm: 'sha256',
    encoding: 'hex',
    counter: 'attempt_number',
  },
  lemonsqueezy: { header: 'x-signature', algorithm: 'sha256', encoding: 'hex' },
  paystack: {
    header: 'x-paystack-signature',
    algorithm: 'sha512',
    encoding: 'hex',
    option: 'secretKey',
  },
} as const satisfies Record<string, BodyOnly>;

/**
 * The signer of a provider that keeps the id in the body: only the signature header. (Its calls
 * below are marked pure: a bundle that imports one signer leaves the others out.)
 */
const bodyOnly =
  <O extends SignerOptions>(name: keyof typeof BODY_ONLY) =>
  (options: O) => {
    const row: BodyOnly = BODY_ONLY[name];
    const option = row.option ?? 'secret';
    const secret = secretOption(name, options as Record<typeof option, unknown>, option);
    const advance = row.counter === undefined ? undefined : counting(row.counter);
    const event = bodySigned(name, options, secret, row, advance);
    return {
      event: (payload: Payload, delivery?: DeliveryOptions): Delivery => event(payload, delivery),
    };
  };

/** A fake Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`. */
export const typeform = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('typeform');

/** A fake Checkout.com: `Cko-Signature`, hex HMAC-SHA256 of the body. */
export const checkout = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('checkout');

/** A fake Vercel: `x-vercel-signature`, hex HMAC-SHA1 of the body. */
export const vercel = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('vercel');

/** A fake Intercom: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>`; a retry raises `delivery_attempts`. */
export const intercom = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('intercom');

/** A fake Coinbase Commerce: `X-CC-Webhook-Signature`, hex HMAC-SHA256 of the body; a retry raises `attempt_number`. */
export const coinbase = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('coinbase');

/** A fake Lemon Squeezy: `X-Signature`, hex HMAC-SHA256 of the body. */
export const lemonsqueezy = /* @__PURE__ */ bodyOnly<SecretSignerOptions>('lemonsqueezy');

/** A fake Paystack: `x-paystack-signature`, hex HMAC-SHA512 of the body under your secret key. */
export const paystack = /* @__PURE__ */ bodyOnly<SignerOptions & { secretKey: string }>('paystack');
