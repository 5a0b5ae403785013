/**
 * @module The family of presets that are {@link hmacPreset} configured (Razorpay, Typeform,
 * Sentry, Paystack…): the factory is written once here, and each provider declares a row holding
 * only what is its own (the secret option's name, the signature header and spelling, the key,
 * retention, the event name) plus, for a few, what they add (a fingerprint, a handshake).
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { type PresetFactory, typed, typedBatch, type TypedPreset } from './events';
import { type HmacBase, type HmacOptions, hmacPreset } from './hmac';
import type { HmacItems } from './hmac-items';
import { requireOptions } from './options';
import type { Keyring, OneOrMany, SecretResolver } from './secrets';

/**
 * How a member signs, as `hmac()` takes it (the header, digest, spelling, signed parts, clock):
 * everything but the provider's name, the user's secrets, the key and retention.
 */
export type HmacSignature = Omit<
  HmacOptions,
  | 'provider'
  | 'secret'
  | 'resolveSecret'
  | 'eventType'
  | 'key'
  | 'keyDescription'
  | 'retentionDays'
  | 'items'
  | 'unauthorizedStatus'
> & {
  /** A check that must pass besides the signature (a timestamp in the body); asked first. */
  precheck?: HmacBase['precheck'];
};

/** The options every member takes besides its own secret option. */
interface MemberOptions {
  readonly resolveSecret?: SecretResolver<string>;
}

/** One provider of the family: what is that provider's, and nothing the family does for all. */
export interface HmacRow<O> {
  /** The receipts' `provider` column and the factory's name in errors: `'razorpay'`. */
  readonly provider: string;
  /** The option holding the secrets and what they are, for errors: `['secretKey', 'your secret key']`. */
  readonly secret: readonly [option: keyof O & string, what: string];
  /** How it signs; a function when some of it comes from the user's options (a URL, a clock). */
  readonly signature: HmacSignature | ((options: O) => HmacSignature);
  /**
   * The delivery's id: a header's name, or `[reader, what a 400 calls it]` (`'event id in the
   * body'`). None for a batch (`items`), whose events carry their ids.
   */
  readonly key?: HmacOptions['key'] | readonly [HmacOptions['key'], string];
  /** For a provider that sends several events per request: where they are, each one's id and name. */
  readonly items?: HmacItems;
  /** The status of the answer to a request that fails verification, where it is not 401. */
  readonly unauthorizedStatus?: number;
  /** How long to keep receipts: the provider's retry window plus its manual redelivery window. */
  readonly retentionDays: number;
  /** The event name of a delivery, for `preset.eventType(request)` (a batch names its items instead). */
  readonly eventType?: (request: HttpRequest) => string | undefined;
  /**
   * What the member adds to the verified preset (a fingerprint, a handshake, a replay rule), from
   * the preset, its keyring and the user's options.
   */
  readonly extend?: (
    preset: ProviderPreset,
    ring: Keyring<Buffer>,
    options: O,
  ) => Partial<ProviderPreset>;
}

/**
 * Builds a member's preset from the user's options and its row: the options object is checked,
 * the secrets are read from the row's option (or `resolveSecret`), and `hmacPreset` does the rest.
 * @throws {ConfigError} naming the first invalid option.
 */
export function hmacFamily<Events extends object, O extends MemberOptions>(
  options: O,
  row: HmacRow<O>,
): TypedPreset<Events> {
  const o = requireOptions(row.provider, options);
  const [option, what] = row.secret;
  const { precheck, ...signature } =
    typeof row.signature === 'function' ? row.signature(o) : row.signature;
  const [key, keyDescription] = Array.isArray(row.key) ? row.key : [row.key as HmacOptions['key']];
  // The option's value is checked by hmacPreset's keyring (a non-empty string or bytes, or a list).
  const secret = (o as Readonly<Record<string, unknown>>)[option] as OneOrMany<string> | undefined;
  const { preset, ring, itemType } = hmacPreset(
    {
      ...signature,
      ...(keyDescription === undefined ? {} : { keyDescription }),
      ...(row.unauthorizedStatus === undefined
        ? {}
        : { unauthorizedStatus: row.unauthorizedStatus }),
      ...(row.items === undefined ? {} : { items: row.items }),
      key,
      retentionDays: row.retentionDays,
      provider: row.provider,
      secret,
      resolveSecret: o.resolveSecret,
    },
    { names: { preset: row.provider, option, what }, precheck },
  );
  const added = row.extend?.(preset, ring, o);
  const built = added === undefined ? preset : { ...preset, ...added };
  if (itemType !== undefined) return typedBatch<Events>(built, itemType);
  return typed<Events>(built, row.eventType ?? (() => undefined));
}

/**
 * A member's factory from its row: `export const razorpay = hmacMember<RazorpayOptions,
 * RazorpayMinimalEvents>({ … })`. Mark the call pure so a bundle that imports one member leaves
 * the others out.
 */
export function hmacMember<O extends MemberOptions, Default extends object>(
  row: HmacRow<O>,
): PresetFactory<O, Default> {
  return (options) => hmacFamily(options, row);
}
