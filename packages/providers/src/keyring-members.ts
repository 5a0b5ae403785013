/**
 * @module Row makers of the presets that are rows of no signing family but share how they are
 * built: a keyring read from the options (string secrets, token digests, or a timed keyring with
 * its clock and window), then a row given to `keyedPreset` (one delivery a request) or
 * `batchedPreset` (several). The factory is written once here; each provider declares only what
 * is its own: its secret option, its default window, how its secret becomes a key, and the row
 * (the id, the signature check, the event name, and what it adds).
 */
import type { PresetFactory, TypedPreset } from './events';
import { type Keyring, type SecretResolver, type TimedOptions, timedKeyring } from './secrets';

/** A family a member's preset is made by (`keyedPreset`, `batchedPreset`): its keyring and its row. */
export type KeyringFamily<K, R> = <Events extends object>(
  ring: Keyring<K>,
  row: R,
) => TypedPreset<Events>;

/** What a row names for every member: the receipts' `provider` column. */
interface Provided {
  readonly provider: string;
}

/** The clock of a timed member and how far a signed time may be from it, for its signature check. */
export interface TimeWindow {
  /** Milliseconds since the epoch: the `clock` option, or `Date.now`. */
  readonly now: () => number;
  /** In seconds: the `toleranceSeconds` option, or the row's default. */
  readonly tolerance: number;
}

/** One member whose provider signs a time: what is that provider's, and nothing the factory does for all. */
export interface TimedMemberRow<O, K, R extends Provided> {
  /** The receipts' `provider` column and the factory's name in errors: `'cloudinary'`. */
  readonly provider: string;
  /** The option holding the secrets and what they are, for errors: `['apiSecret', 'the API secret']`. */
  readonly secret: readonly [option: keyof O & string, what: string];
  /** The default of `toleranceSeconds`, the provider's own SDK's. */
  readonly toleranceSeconds: number;
  /** Makes one checked secret into the key it verifies with (a public key, bytes); the secret as it is without it. */
  readonly toKey?: (secret: string) => K;
  /** `keyedPreset` or `batchedPreset`. */
  readonly family: KeyringFamily<K, R>;
  /** The rest of the row, from the options (checked after the secrets, for the provider's own) and the window. */
  readonly row: (options: O, window: TimeWindow) => Omit<R, 'provider'>;
}

/**
 * A timed member's factory from its row: the options object, clock, secrets and tolerance are
 * checked (in that order), then the row's own options; the family makes the preset.
 * `export const acme: PresetFactory<AcmeOptions, AcmeMinimalEvents> = timedMember({ … })`, the call
 * marked pure so a bundle that imports one member leaves the others out.
 */
export function timedMember<O extends TimedOptions, K, R extends Provided>(
  member: TimedMemberRow<O, K, R>,
): PresetFactory<O, object> {
  const { provider, secret, toleranceSeconds, toKey, family, row } = member;
  return (options) => {
    const { ring, now, tolerance } = timedKeyring<O, K>(
      provider,
      options,
      secret,
      toleranceSeconds,
      toKey,
    );
    return family(ring, { provider, ...row(options, { now, tolerance }) } as R);
  };
}

/** How a member reads its string secrets: `tokenKeyring` (kept as digests) or `stringKeyring` (as they are). */
export type SecretReader<O, K> = (
  preset: string,
  options: O,
  option: keyof O & string,
  what: string,
) => Keyring<K>;

/** One member with string secrets and no signed time: what is that provider's, and nothing the factory does for all. */
export interface SecretMemberRow<O, K, R extends Provided> {
  /** The receipts' `provider` column: `'gitlab'`. */
  readonly provider: string;
  /** The factory's name in errors, where it is not `provider`: `'azureEventGrid'`. */
  readonly factory?: string;
  /** How the secrets are read, the option holding them and what they are, for errors. */
  readonly secret: readonly [read: SecretReader<O, K>, option: keyof O & string, what: string];
  /** `keyedPreset` or `batchedPreset`. */
  readonly family: KeyringFamily<K, R>;
  /** The rest of the row; a function of the options when the provider has options of its own, checked before the secrets. */
  readonly row: Omit<R, 'provider'> | ((options: O) => Omit<R, 'provider'>);
}

/**
 * A member's factory from its row: the row's own options checked first (when it has any), then
 * the secrets; the family makes the preset. Mark the call pure, as for {@link timedMember}.
 */
export function secretMember<
  O extends { readonly resolveSecret?: SecretResolver<string> },
  K,
  R extends Provided,
>(member: SecretMemberRow<O, K, R>): PresetFactory<O, object> {
  const { provider, factory = provider, secret, family, row } = member;
  const [read, option, what] = secret;
  return (options) => {
    const own = typeof row === 'function' ? row(options) : row;
    const ring = read(factory, options, option, what);
    return family(ring, { provider, ...own } as R);
  };
}
