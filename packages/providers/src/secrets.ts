/**
 * @module The secrets every preset verifies with, in one shape: one secret or several (a rotation
 * window: any one verifies, in any order), or a resolver asked per request (a secret per customer,
 * looked up by the account id in the path or a header), and the tenant it found, which becomes
 * part of the receipt's key.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import {
  type ClockOption,
  clockOption,
  requireOptions,
  requireString,
  type ToleranceOption,
  toleranceOption,
} from './options';
import { listOf, resolverCache, type ResolverCache } from './secret-resolver';
import type { Candidates, OneOrMany, SecretResolver } from './secret-types';

export { listOf, validTenant } from './secret-resolver';
export type {
  Candidates,
  OneOrMany,
  SecretCacheOptions,
  SecretLookup,
  SecretLookupContext,
  SecretResolver,
} from './secret-types';

/** What a preset's verify found for one request: the key that matched, and the tenant. */
interface Verified<K> {
  readonly key: K;
  readonly tenant: string | undefined;
}

/** A request's candidates, now or once looked up; `undefined` refuses it. */
type MaybeLater<T> = T | Promise<T>;

/**
 * A preset's secrets, resolved once at construction: fixed keys, or a resolver with its cache.
 * `verify` checks a request against the candidates and remembers, per request, the key that
 * matched and the tenant; `scope` puts that tenant before a receipt id.
 */
export class Keyring<K> {
  private readonly verified = new WeakMap<HttpRequest, Verified<K>>();

  constructor(
    private readonly fixed: readonly K[] | undefined,
    private readonly cache: ResolverCache<K> | undefined,
  ) {}

  /** True when receipt ids carry a tenant (a resolver with a `tenant` function). */
  get scoped(): boolean {
    return this.cache?.scoped === true;
  }

  /** The keys to try for `request`: the fixed ones, or the resolver's (cached, or looked up). */
  candidates(request: HttpRequest): MaybeLater<Candidates<K> | undefined> {
    if (this.fixed) return { keys: this.fixed, tenant: undefined };
    return (this.cache as ResolverCache<K>).lookup(request);
  }

  /** The fixed keys, or a tenant's keys already in the cache; `undefined` otherwise. Never looks up. */
  peek(request: HttpRequest): readonly K[] | undefined {
    return this.fixed ?? this.cache?.peek(request);
  }

  /**
   * Checks `request` with `match`, which gets every candidate key and returns the one that
   * verified (or `undefined`). Sync for fixed keys; a promise when a lookup runs. Anything that
   * throws, a lookup that fails and an unknown tenant all give `false`.
   */
  verify(
    request: HttpRequest,
    match: (request: HttpRequest, keys: readonly K[]) => MaybeLater<K | undefined>,
  ): boolean | Promise<boolean> {
    const settle = (found: Candidates<K> | undefined): boolean | Promise<boolean> => {
      if (found === undefined || found.keys.length === 0) return false;
      const remember = (key: K | undefined) => {
        if (key === undefined) return false;
        this.verified.set(request, { key, tenant: found.tenant });
        return true;
      };
      const key = match(request, found.keys);
      return key instanceof Promise ? key.then(remember, () => false) : remember(key);
    };
    try {
      const found = this.candidates(request);
      return found instanceof Promise ? found.then(settle).catch(() => false) : settle(found);
    } catch {
      return false;
    }
  }

  /** The key that verified `request`, if `verify` passed it. */
  matched(request: HttpRequest): K | undefined {
    return this.verified.get(request)?.key;
  }

  /** A text id read from the request (a header's value), an empty one counting as none, {@link scope}d. */
  scopeText(request: HttpRequest, id: string | undefined): string | undefined {
    return this.scope(request, id === '' ? undefined : id);
  }

  /**
   * `id` scoped by the tenant that verified `request` (`tenant:id`), or as it is without tenants.
   * A scoped preset gives `undefined` for a request it did not verify. A value that is not a
   * usable id (an object, an unsafe number) is returned as it is, for the engine to refuse.
   */
  scope<T>(request: HttpRequest, id: T): T | string | undefined {
    if (!this.scoped || id === undefined || id === null || id === '') return id;
    const tenant = this.verified.get(request)?.tenant;
    if (tenant === undefined) return undefined;
    if (typeof id === 'string' || typeof id === 'bigint') return `${tenant}:${id}`;
    if (typeof id === 'number' && Number.isSafeInteger(id)) return `${tenant}:${id}`;
    return id;
  }
}

/**
 * Every candidate checked, the first that passes returned: all are tried whatever the outcome,
 * so the time taken tells nothing of which one matched. A check that throws counts as a failure.
 */
export function firstMatch<K>(keys: readonly K[], check: (key: K) => boolean): K | undefined {
  let found: K | undefined;
  for (const key of keys) {
    let ok = false;
    try {
      ok = check(key);
    } catch {
      ok = false;
    }
    if (ok && found === undefined) found = key;
  }
  return found;
}

/** How a preset names and reads its kind of secret, for {@link keyring}. */
export interface SecretKind<S, K> {
  /** The factory's name, for errors: `'stripe'`. */
  readonly preset: string;
  /** The option holding the fixed secrets: `'secret'`, `'signingSecret'`. */
  readonly option: string;
  /** What the option is, for errors: `'the endpoint signing secret (whsec_…)'`. */
  readonly what: string;
  /** Checks and prepares one secret (decodes it, builds its key); throws a `ConfigError` when invalid. */
  readonly prepare: (secret: S) => K;
  /** The preset's clock, for the cache. Defaults to `Date.now`. */
  readonly now?: () => number;
}

/**
 * Builds a preset's {@link Keyring} from its options: exactly one of the fixed secrets (`given`,
 * one or several, each checked by `kind.prepare`) and `resolveSecret`.
 * @throws {ConfigError} naming the option when neither or both are given, or a secret is invalid.
 */
export function keyring<S, K>(
  kind: SecretKind<S, K>,
  given: OneOrMany<S> | undefined,
  resolver: SecretResolver<S> | undefined,
): Keyring<K> {
  const { preset, option, what } = kind;
  if (resolver !== undefined) {
    if (given !== undefined)
      throw new ConfigError(
        'resolveSecret',
        `${preset}() takes "${option}" or "resolveSecret", not both`,
      );
    return new Keyring<K>(undefined, resolverCache(preset, resolver, kind.prepare, kind.now));
  }
  const list = listOf(given);
  if (given === undefined || list.length === 0)
    throw new ConfigError(
      option,
      `${preset}() needs ${what} as "${option}" (one, or several while you rotate them), or a "resolveSecret" lookup`,
    );
  return new Keyring<K>(list.map(kind.prepare), undefined);
}

/**
 * A preset's secret options: the fixed secrets under the preset's own option name (one, or
 * several while you rotate them), or `resolveSecret`, never both.
 * @typeParam Option the preset's option name (`'secret'`, `'signingSecret'`).
 * @typeParam S the preset's kind of secret.
 */
export type SecretOptions<Option extends string, S> =
  | ({ readonly [K in Option]: OneOrMany<S> } & { readonly resolveSecret?: undefined })
  | ({ readonly [K in Option]?: undefined } & { readonly resolveSecret: SecretResolver<S> });

/**
 * The options of a preset whose provider signs a time with each delivery: its secrets (as
 * {@link SecretOptions}), the window the signed time must fall in (`toleranceSeconds`) and the
 * clock it is read against (`clock`, for tests). The options type of each such preset is this one
 * under its own name (with its own options beside, where it has any), its default window in its
 * documentation; Standard Webhooks, which has settings of its own, keeps its own type.
 * @typeParam Option the preset's option name (`'secret'`, `'signingSecret'`).
 * @typeParam S the preset's kind of secret, a string unless it says otherwise.
 */
export type TimedSecretOptions<Option extends string, S = string> = SecretOptions<Option, S> &
  ClockOption &
  ToleranceOption;

/** The {@link SecretKind} of a preset whose secret is a non-empty string used as it is. */
export function stringSecret(
  preset: string,
  option: string,
  what: string,
  now?: () => number,
): SecretKind<string, string> {
  return {
    preset,
    option,
    what,
    now,
    prepare: (secret) => requireString(preset, option, secret, `${what} as "${option}"`),
  };
}

/** What {@link stringKeyring} may be told besides where the secrets are. */
export interface StringKeyringOptions<K> {
  /** The preset's clock, for the cache. Defaults to `Date.now`. */
  readonly now?: () => number;
  /** Makes one checked secret into the key it verifies with (decoded, hashed, a checker); throws a `ConfigError` when invalid. */
  readonly toKey?: (secret: string) => K;
}

/**
 * The {@link Keyring} of a preset whose secrets are non-empty strings: the fixed ones under
 * `option` of the preset's `options`, or its `resolveSecret`; each used as it is, or made into
 * its key by `toKey`.
 * @throws {ConfigError} naming the option when neither or both are given, or a secret is invalid.
 */
export function stringKeyring<
  O extends { readonly resolveSecret?: SecretResolver<string> },
  K = string,
>(
  preset: string,
  options: O,
  option: keyof O & string,
  what: string,
  more: StringKeyringOptions<K> = {},
): Keyring<K> {
  // Each secret is checked by stringSecret's `prepare` (a non-empty string).
  const given = (options as Readonly<Record<string, unknown>>)[option] as OneOrMany<string>;
  const kind = stringSecret(preset, option, what, more.now);
  const { toKey } = more;
  // Without `toKey`, K is its default, string: the checked secret is the key.
  const prepare =
    toKey === undefined
      ? (kind.prepare as (secret: string) => K)
      : (secret: string) => toKey(kind.prepare(secret));
  return keyring({ ...kind, prepare }, given, options.resolveSecret);
}

/** The options of a preset whose provider signs a timestamp, besides where its secrets are. */
export interface TimedOptions {
  readonly resolveSecret?: SecretResolver<string>;
  readonly toleranceSeconds?: number;
  readonly clock?: () => number;
}

/** What such a preset checks a request with: its keyring, its clock and how far a stamp may be from it. */
export interface TimedKeyring<K> {
  readonly ring: Keyring<K>;
  readonly now: () => number;
  /** In seconds. */
  readonly tolerance: number;
}

/**
 * The clock, {@link stringKeyring} and tolerance of a preset whose provider signs a timestamp,
 * checked in that order after the options object. `toleranceSeconds` defaults to `fallback`,
 * the provider's own SDK's.
 * @throws {ConfigError} naming the first invalid option.
 */
export function timedKeyring<O extends TimedOptions, K = string>(
  preset: string,
  options: O,
  secret: readonly [option: keyof O & string, what: string],
  fallback: number,
  toKey?: (secret: string) => K,
): TimedKeyring<K> {
  const o = requireOptions(preset, options);
  const now = clockOption(preset, o.clock);
  const ring = stringKeyring<O, K>(preset, o, secret[0], secret[1], { now, toKey });
  return { ring, now, tolerance: toleranceOption(preset, o.toleranceSeconds, fallback) };
}
