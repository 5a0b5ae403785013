/**
 * @module The family of presets whose provider signs a timestamp with the raw body under a string
 * secret (Stripe, Paddle, Calendly, Slack): the factory is written once here, each provider
 * declares a row holding only what is its own (the secret option, the signature header and how
 * to read it, what is signed, the default tolerance, the key, retention, the event name).
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import type { PresetFactory, TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { header } from './request-fields';
import { firstMatch, type TimedOptions, timedKeyring } from './secrets';
import {
  parseUnixSeconds,
  type SignatureEncoding,
  type SignedParts,
  type StampUnit,
} from './signature';
import { timestampedHmac } from './timestamped-hmac';

/** What a member reads from its signature header: the signed timestamp as sent, and every signature. */
export interface SentSignature {
  readonly stamp: string | undefined;
  readonly signatures: readonly string[];
}

/** One provider of the family: what is that provider's, and nothing the family does for all. */
export interface TimestampedRow<O> {
  /** The receipts' `provider` column and the factory's name in errors: `'stripe'`. */
  readonly provider: string;
  /** The option holding the secrets and what they are, for errors: `['signingKey', 'the signing key']`. */
  readonly secret: readonly [option: keyof O & string, what: string];
  /** The default of `toleranceSeconds`, the provider's own SDK's. */
  readonly toleranceSeconds: number;
  /** The header carrying the signature (lower case). */
  readonly header: string;
  /**
   * Reads the header's value (and, for some, another header): `undefined` when it cannot be valid.
   * Several groups, each with its own stamp, where the provider sends one per secret (Persona):
   * any one group may verify.
   */
  readonly read: (
    value: string,
    request: HttpRequest,
  ) => SentSignature | readonly SentSignature[] | undefined;
  /** How the provider writes the signed time. Defaults to `'s'`, Unix seconds. */
  readonly stamp?: StampUnit;
  /** How the provider spells its signatures. Defaults to `'hex'`. */
  readonly encoding?: SignatureEncoding;
  /** What the provider signs, given the stamp as sent, as parsed seconds, and the raw body. */
  readonly signed: (stamp: string, seconds: number, rawBody: Buffer) => SignedParts;
  /** The delivery's id, and what a 400 calls it when it is missing: `[reader, 'event id in the body']`. */
  readonly key: readonly [ProviderPreset['key'], string];
  /** How long to keep receipts: the provider's retry window plus its manual redelivery window. */
  readonly retentionDays: number;
  /** The event name of a delivery, for `preset.eventType(request)`. */
  readonly eventType: (request: HttpRequest) => string | undefined;
  /** Requests answered without a claim (Slack's URL verification). */
  readonly passThrough?: ProviderPreset['passThrough'];
}

/**
 * What most members sign (Stripe's form, kept by Calendly, WorkOS, Recurly, Persona, ElevenLabs
 * and Sanity): the stamp as sent, a dot, then the raw body.
 */
export const stampDotBody = (stamp: string, _seconds: number, rawBody: Buffer): SignedParts => [
  `${stamp}.`,
  rawBody,
];

/**
 * A reader of `name=value` lists such as `t=…,v1=…,v1=…`: the first `stamp` (with `unixOnly`, the
 * first that is Unix seconds) and every `scheme` value; other names and items without `=` are ignored.
 */
export function signatureList(
  separator: string,
  stamp: string,
  scheme: string,
  unixOnly = false,
): (value: string) => SentSignature {
  return (value) => {
    let found: string | undefined;
    const signatures: string[] = [];
    for (const item of value.split(separator)) {
      const eq = item.indexOf('=');
      if (eq === -1) continue;
      const name = item.slice(0, eq).trim();
      const text = item.slice(eq + 1).trim();
      if (name === stamp && found === undefined) {
        if (!unixOnly || parseUnixSeconds(text) !== undefined) found = text;
      } else if (name === scheme) signatures.push(text);
    }
    return { stamp: found, signatures };
  };
}

/**
 * Builds a member's preset from the user's options and its row: the options object, clock,
 * secrets and tolerance are checked (in that order), then every request's stamp must be fresh
 * and one signature must match under one secret, in constant time.
 * @throws {ConfigError} naming the first invalid option.
 */
export function timestampedFamily<Events extends object, O extends TimedOptions>(
  options: O,
  row: TimestampedRow<O>,
): TypedPreset<Events> {
  const { ring, now, tolerance } = timedKeyring(
    row.provider,
    options,
    row.secret,
    row.toleranceSeconds,
  );
  const check = timestampedHmac({
    encoding: row.encoding ?? 'hex',
    stamp: row.stamp ?? 's',
    toleranceSeconds: tolerance,
    now,
  });
  return keyedPreset<Events, string>(ring, {
    ...(row.passThrough === undefined ? {} : { passThrough: row.passThrough }),
    provider: row.provider,
    keyDescription: row.key[1],
    needsRawBody: true,
    retentionDays: row.retentionDays,
    id: row.key[0],
    signedWith(r, keys) {
      const { rawBody } = r;
      const value = header(r, row.header);
      const sent = rawBody === undefined || value === undefined ? undefined : row.read(value, r);
      if (rawBody === undefined || sent === undefined) return undefined;
      const signed = (stamp: string, seconds: number) => row.signed(stamp, seconds, rawBody);
      const groups = (Array.isArray(sent) ? sent : [sent]) as readonly SentSignature[];
      return firstMatch(keys, (key) => groups.some((group) => check(key, { ...group, signed })));
    },
    eventType: row.eventType,
  });
}

/**
 * A member's factory from its row: `export const stripe = timestampedMember<StripeOptions,
 * StripeMinimalEvents>({ … })`. Mark the call pure so a bundle that imports one member leaves the
 * others out.
 */
export function timestampedMember<O extends TimedOptions, Default extends object>(
  row: TimestampedRow<O>,
): PresetFactory<O, Default> {
  return (options) => timestampedFamily(options, row);
}
