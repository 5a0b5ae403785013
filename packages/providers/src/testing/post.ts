/**
 * @module The shape most signers share: a key read from the options (an HMAC secret, or a private
 * key), and a JSON POST to the signer's URL whose headers are signed at each attempt under that key
 * (the forger's on the forged copy). A signer says only what its provider signs and how it spells
 * the headers.
 */
import { bytesOf, forgedSecret, jsonPost, optionsOf, type Payload, placeOf, text } from './common';
import { type Delivery, type DeliveryOptions, delivered, type SignerOptions } from './delivery';

/** One attempt as a signer signs it, under keys of type `K` (secrets by default). */
export interface Signing<K = string> {
  /** The bytes sent. */
  readonly body: Buffer;
  /** When the attempt is signed, milliseconds since the epoch. */
  readonly at: number;
  /** 0 for the first delivery, n for the nth retry. */
  readonly retries: number;
  /** The key to sign with: the forger's on the forged copy. */
  readonly key: K;
  /** Every key, for a provider that signs once per secret (the first is `key`). */
  readonly keys: readonly K[];
}

/** One attempt before its body is made: what a body signed inside itself needs. */
export type Unsigned<K = string> = Omit<Signing<K>, 'body'>;

/** The signing headers of one attempt. */
export type HeadersOf<K = string> = (signing: Signing<K>) => Record<string, string>;

/** The required string option `option` of signer `name` (its secret, key or token), checked. */
export function secretOption<T extends object>(name: string, options: T, option: keyof T & string) {
  return text(name, option, optionsOf(name, options)[option]);
}

/**
 * The deliveries of signer `name` under `keys` (`forger()` gives the forger's, made on first use):
 * `post(body, delivery, headersOf)` POSTs the payload's bytes as JSON to the signer's URL (or,
 * where `body` is a function, the payload it gives each attempt, which may sign with the key) with
 * the headers `headersOf` signs; `to` is the URL called where a delivery adds to the signer's (a
 * query, an operation's path).
 */
export function keyedSigner<K>(
  name: string,
  options: SignerOptions,
  keys: readonly K[],
  forger: () => readonly K[],
) {
  const { url, clock } = placeOf(name, options);
  const post = (
    body: Payload | ((attempt: Unsigned<K>) => Payload),
    delivery: DeliveryOptions | undefined,
    headersOf: HeadersOf<K>,
    to = url,
  ): Delivery => {
    const fixed = typeof body === 'function' ? undefined : bytesOf(body);
    return delivered(clock, delivery, ({ at, retries, forged }) => {
      const signing = forged ? forger() : keys;
      const attempt = { at, retries, key: signing[0]!, keys: signing };
      const bytes = fixed ?? bytesOf((body as (attempt: Unsigned<K>) => Payload)(attempt));
      return jsonPost(to, bytes, headersOf({ body: bytes, ...attempt }));
    });
  };
  return { url, clock, post };
}

/** {@link keyedSigner} under one HMAC secret, or several where the provider signs once per secret. */
export function secretSigner(
  name: string,
  options: SignerOptions,
  secrets: string | readonly string[],
) {
  const own = typeof secrets === 'string' ? [secrets] : secrets;
  const forged = own.map(forgedSecret);
  return keyedSigner(name, options, own, () => forged);
}

/**
 * A signer whose `event(payload)` POSTs the payload signed by `headersOf` under its secret option
 * `option`: the whole signer of a provider that signs nothing but headers.
 */
export function signedEvents<O extends SignerOptions>(
  name: string,
  options: O,
  option: keyof O & string,
  headersOf: HeadersOf,
) {
  const { post } = secretSigner(name, options, secretOption(name, options, option));
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, headersOf),
  };
}
