/**
 * @module Signers of the timestamped-HMAC providers whose stamp is not plain Unix seconds in a
 * `t=` of its own, or whose header lists several signatures (WorkOS, ElevenLabs…): each signs, at every
 * attempt, HMAC-SHA256 of what its provider puts before the body, then the body.
 */
import { mac, optionsOf, type Payload, type Secrets, secretsOf, seconds } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { secretSigner } from './post';

/** How one provider signs an attempt. */
interface Stamping {
  /** The signed time of an attempt made at `at` (milliseconds since the epoch), as sent. */
  readonly stamp: (at: number) => string;
  /** What is signed before the body, given the stamp as sent. */
  readonly before: (stamp: string) => string;
  /** How a digest is spelled. */
  readonly encoding: 'hex' | 'base64' | 'base64url';
  /** The signing headers, given the stamp and one signature per secret. */
  readonly headers: (stamp: string, signatures: readonly string[]) => Record<string, string>;
}

/** Unix milliseconds, as WorkOS, Sanity, Webflow, Recurly and Revolut sign them. */
export const milliseconds = (at: number): string => String(Math.floor(at));

/** What most providers sign before the body: the stamp as sent, then a dot (`t.body`). */
const stampDot = (stamp: string): string => `${stamp}.`;

/** Unix seconds, as ElevenLabs, Mux and Persona sign them. */
const unixSeconds = (at: number): string => String(seconds(at));

/**
 * The header `name` as a `t=<stamp>` followed by one `<scheme>=<signature>` per secret, joined by
 * `separator`: `t=…,v1=…,v1=…`.
 */
function stampList(name: string, scheme: string, separator = ',') {
  return (t: string, signatures: readonly string[]) => ({
    [name]: [`t=${t}`, ...signatures.map((s) => `${scheme}=${s}`)].join(separator),
  });
}

/**
 * The signer `name`, under the secret (or secrets) of its option `option`: `event(payload)`
 * POSTs the payload signed as `stamping` says, once per secret, with the unsigned headers
 * `extra` (a delivery's ids) kept by every retry.
 */
function stampedSigner<O extends SignerOptions>(
  name: string,
  options: O,
  option: keyof O & string,
  stamping: Stamping,
) {
  const secrets = secretsOf(name, option, optionsOf(name, options)[option]);
  const { post } = secretSigner(name, options, secrets);
  return {
    event: (
      payload: Payload,
      delivery?: DeliveryOptions,
      extra?: Record<string, string>,
    ): Delivery =>
      post(payload, delivery, ({ body, at, keys }) => {
        const stamp = stamping.stamp(at);
        const signed = [stamping.before(stamp), body];
        const signatures = keys.map((key) =>
          mac('sha256', key, signed).toString(stamping.encoding),
        );
        return { ...extra, ...stamping.headers(stamp, signatures) };
      }),
  };
}

/** Options of the {@link workos} signer. */
export interface WorkOSSignerOptions extends SignerOptions {
  /** The webhook secret; several sign one `v1` each. */
  secret: Secrets;
}

/** A fake WorkOS: `WorkOS-Signature: t=<unix ms>, v1=<hex HMAC-SHA256 of "t.body">`. */
export function workos(options: WorkOSSignerOptions) {
  return stampedSigner('workos', options, 'secret', {
    stamp: milliseconds,
    before: stampDot,
    encoding: 'hex',
    headers: stampList('workos-signature', 'v1', ', '),
  });
}

/** Options of the {@link elevenlabs} signer. */
export interface ElevenLabsSignerOptions extends SignerOptions {
  /** The webhook's HMAC secret; several sign one `v0` each. */
  secret: Secrets;
}

/** A fake ElevenLabs: `ElevenLabs-Signature: t=<unix>,v0=<hex HMAC-SHA256 of "t.body">`. */
export function elevenlabs(options: ElevenLabsSignerOptions) {
  return stampedSigner('elevenlabs', options, 'secret', {
    stamp: unixSeconds,
    before: stampDot,
    encoding: 'hex',
    headers: stampList('elevenlabs-signature', 'v0'),
  });
}

/** Options of the {@link sanity} signer. */
export interface SanitySignerOptions extends SignerOptions {
  /** The webhook's secret. */
  secret: Secrets;
}

/** Options of one Sanity delivery: the headers naming the change it reports. */
export interface SanityDeliveryOptions extends DeliveryOptions {
  /** `sanity-transaction-id`. Defaults to a new one. */
  transaction?: string;
  /** `sanity-document-id`. Defaults to `doc-kit`. */
  document?: string;
}

/**
 * A fake Sanity: `sanity-webhook-signature: t=<unix ms>,v1=<unpadded base64url HMAC-SHA256 of
 * "t.body">`, with `sanity-transaction-id` and `sanity-document-id`, kept by a retry.
 */
export function sanity(options: SanitySignerOptions) {
  const { event } = stampedSigner('sanity', options, 'secret', {
    stamp: milliseconds,
    before: stampDot,
    encoding: 'base64url',
    headers: stampList('sanity-webhook-signature', 'v1'),
  });
  return {
    event(payload: Payload, delivery: SanityDeliveryOptions = {}): Delivery {
      return event(payload, delivery, {
        'sanity-transaction-id': delivery.transaction ?? `tx_${newId().slice(0, 8)}`,
        'sanity-document-id': delivery.document ?? 'doc-kit',
      });
    },
  };
}

/** Options of the {@link mux} signer. */
export interface MuxSignerOptions extends SignerOptions {
  /** The webhook signing secret; several sign one `v1` each. */
  secret: Secrets;
}

/** A fake Mux: `mux-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function mux(options: MuxSignerOptions) {
  return stampedSigner('mux', options, 'secret', {
    stamp: unixSeconds,
    before: stampDot,
    encoding: 'hex',
    headers: stampList('mux-signature', 'v1'),
  });
}

/** Options of the {@link webflow} signer. */
export interface WebflowSignerOptions extends SignerOptions {
  /** The webhook's secret (or the OAuth app's client secret). */
  secret: string;
}

/**
 * A fake Webflow: `x-webflow-timestamp` in milliseconds and `x-webflow-signature`, hex
 * HMAC-SHA256 of "timestamp:body".
 */
export function webflow(options: WebflowSignerOptions) {
  return stampedSigner('webflow', options, 'secret', {
    stamp: milliseconds,
    before: (t) => `${t}:`,
    encoding: 'hex',
    headers: (t, [signature]) => ({
      'x-webflow-timestamp': t,
      'x-webflow-signature': signature ?? '',
    }),
  });
}

/** Options of the {@link revolut} signer. */
export interface RevolutSignerOptions extends SignerOptions {
  /** The webhook signing secret; several sign one `v1` each, as during a rotation. */
  signingSecret: Secrets;
}

/**
 * A fake Revolut Merchant: `Revolut-Request-Timestamp` in milliseconds and `Revolut-Signature:
 * v1=<hex HMAC-SHA256 of "v1.timestamp.body">`, one `v1` per secret.
 */
export function revolut(options: RevolutSignerOptions) {
  return stampedSigner('revolut', options, 'signingSecret', {
    stamp: milliseconds,
    before: (t) => `v1.${t}.`,
    encoding: 'hex',
    headers: (t, signatures) => ({
      'revolut-request-timestamp': t,
      'revolut-signature': signatures.map((s) => `v1=${s}`).join(','),
    }),
  });
}

/** Options of the {@link persona} signer. */
export interface PersonaSignerOptions extends SignerOptions {
  /** The webhook secret; several sign one `t=…,v1=…` group each, as during a rotation. */
  secret: Secrets;
}

/**
 * A fake Persona: `Persona-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, one group per
 * secret, separated by a space.
 */
export function persona(options: PersonaSignerOptions) {
  return stampedSigner('persona', options, 'secret', {
    stamp: unixSeconds,
    before: stampDot,
    encoding: 'hex',
    headers: (t, signatures) => ({
      'persona-signature': signatures.map((s) => `t=${t},v1=${s}`).join(' '),
    }),
  });
}

/** Options of the {@link recurly} signer. */
export interface RecurlySignerOptions extends SignerOptions {
  /** The webhook endpoint's secret key; several sign one signature each, as after a regeneration. */
  secret: Secrets;
}

/** A fake Recurly: `recurly-signature: <unix ms>,<hex HMAC-SHA256 of "ms.body">`, one per secret. */
export function recurly(options: RecurlySignerOptions) {
  return stampedSigner('recurly', options, 'secret', {
    stamp: milliseconds,
    before: stampDot,
    encoding: 'hex',
    headers: (t, signatures) => ({ 'recurly-signature': [t, ...signatures].join(',') }),
  });
}
