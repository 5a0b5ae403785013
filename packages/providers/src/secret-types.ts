/**
 * @module The shapes of a preset's secrets (one or several, or a resolver asked per request, with
 * its cache), apart from the code that uses them so the keyring and the resolver's cache both
 * read them without importing each other.
 */
import type { HttpRequest } from '@webhook-idempotency/core';

/** One secret, or several while a rotation is under way: any one verifies, the order does not matter. */
export type OneOrMany<S> = S | readonly S[];

/** What a lookup found: the tenant's secrets, or nothing (`undefined`, `null`, an empty list) for an unknown tenant. */
export type SecretLookup<S> = OneOrMany<S> | null | undefined;

/** What a {@link SecretResolver.secrets} lookup is given besides the tenant. */
export interface SecretLookupContext {
  /** The first request that asked for this tenant (concurrent requests for one tenant share a lookup). */
  readonly request: HttpRequest;
  /** Aborted when the lookup's `timeoutMs` has passed: cancel the query then. */
  readonly signal: AbortSignal;
}

/**
 * Where a preset finds its secrets per request instead of a fixed list: a platform with one
 * secret per customer, or secrets kept in a store that rotates them. A lookup that throws, times
 * out or finds nothing answers the request like a wrong signature (401, nothing stored).
 * @typeParam S the preset's kind of secret: a string for HMAC presets, a public key, a credential pair…
 */
export interface SecretResolver<S> {
  /**
   * The tenant the request is for, read cheaply and synchronously from the request (a path
   * segment, a header): the lookup's argument, the cache's key, and part of every receipt key of
   * the tenant (`tenant:id`), so two tenants' equal event ids never replay each other's answers.
   * 1 to 64 characters of `A-Z a-z 0-9 . _ - ~`; anything else (or `undefined`) refuses the
   * request without a lookup. Leave it out for secrets without tenants (a secret store that
   * rotates them): the receipt keys stay unscoped.
   */
  tenant?: (request: HttpRequest) => string | undefined;
  /** The secrets of `tenant` (`undefined` without a `tenant` function), sync or async. */
  secrets: (
    tenant: string | undefined,
    context: SecretLookupContext,
  ) => SecretLookup<S> | Promise<SecretLookup<S>>;
  /** The bounded cache of lookups; see {@link SecretCacheOptions}. */
  cache?: SecretCacheOptions;
  /** Lookups running at once, across tenants; more wait for a place. Defaults to 8. */
  concurrency?: number;
  /** How long a request waits for its lookup (a place included), in milliseconds. Defaults to 5000. */
  timeoutMs?: number;
  /** Told of a lookup that threw, timed out or returned something that is not a secret. */
  onError?: (error: unknown, tenant: string | undefined) => void;
}

/**
 * The resolver's cache. Found secrets and unknown tenants are kept apart, each in its own
 * least-recently-used list of `max` tenants: requests naming made-up accounts can fill the
 * second, never evict the first. A lookup that failed is not kept.
 */
export interface SecretCacheOptions {
  /** Tenants kept, of each kind (found, unknown). Defaults to 1000; 0 keeps none. */
  max?: number;
  /** How long found secrets are used before they are looked up again, in milliseconds. Defaults to 60 000. */
  ttlMs?: number;
  /** How long an unknown tenant is refused without a lookup, in milliseconds. Defaults to 5000. */
  missTtlMs?: number;
}

/** The keys a request is checked against, and its tenant. */
export interface Candidates<K> {
  readonly keys: readonly K[];
  readonly tenant: string | undefined;
}
