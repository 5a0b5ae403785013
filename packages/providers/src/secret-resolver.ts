/**
 * @module The per-request secret lookup behind `resolveSecret`: a bounded cache, one lookup per
 * tenant at a time, a cap on lookups at once and a deadline. Every bound holds against a sender
 * who names accounts that do not exist: unknown tenants are kept apart from known ones (they never
 * evict them), are refused without a lookup for a while, and never run more than `concurrency`
 * lookups against the database at once.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { Candidates, OneOrMany, SecretResolver } from './secret-types';

const DEFAULT_MAX = 1000;
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_MISS_TTL_MS = 5000;
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_MS = 5000;

/** A tenant: part of a receipt key, so short and free of the `:` that separates it from the id. */
const TENANT = /^[A-Za-z0-9._~-]{1,64}$/;

/** True for a tenant id the receipt key can carry (see `SecretResolver.tenant`). */
export function validTenant(tenant: unknown): tenant is string {
  return typeof tenant === 'string' && TENANT.test(tenant);
}

/** The list of `value` (one secret or an array of them), empty when there is none. */
export function listOf<S>(value: OneOrMany<S> | null | undefined): readonly S[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as readonly S[]) : [value as S];
}

/** The resolver of one preset, as the keyring uses it. */
export interface ResolverCache<K> {
  /** True when the resolver names tenants (receipt ids are then scoped by them). */
  readonly scoped: boolean;
  /** The request's tenant and keys; `undefined` for no tenant, an unknown one or a failed lookup. */
  lookup(request: HttpRequest): Promise<Candidates<K> | undefined>;
  /** The cached keys of the request's tenant, without a lookup. */
  peek(request: HttpRequest): readonly K[] | undefined;
}

/** A map that keeps its `size` most recently used entries, each until its own time. */
export class ExpiringLru<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  constructor(private readonly size: number) {}

  /** The live value of `key` (marked as just used), or `undefined`. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (now >= entry.until) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, until: number): void {
    if (this.size === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, until });
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }

  /** How many entries are held (expired ones included until they are read or pushed out). */
  get length(): number {
    return this.entries.size;
  }
}

/** A cap on tasks running at once; the others wait their turn, in order. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  /** Resolves with a release function once a place is free; `signal` gives the place up. */
  take(signal: AbortSignal): Promise<(() => void) | undefined> {
    return new Promise((resolve) => {
      const grant = () => {
        this.running++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.running--;
          this.waiting.shift()?.();
        });
      };
      if (this.running < this.size) return grant();
      const wait = () => {
        signal.removeEventListener('abort', quit);
        grant();
      };
      const quit = () => {
        const at = this.waiting.indexOf(wait);
        if (at !== -1) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      this.waiting.push(wait);
      signal.addEventListener('abort', quit, { once: true });
    });
  }
}

function count(preset: string, option: string, value: unknown, fallback: number, min: number) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new ConfigError(
      `resolveSecret.${option}`,
      `${preset}() needs a whole number >= ${min}, got ${String(value)}`,
    );
  return value;
}

/** The resolver's settings, checked once. */
function settings(preset: string, resolver: SecretResolver<unknown>) {
  if (typeof resolver !== 'object' || resolver === null || typeof resolver.secrets !== 'function')
    throw new ConfigError(
      'resolveSecret',
      `${preset}() needs resolveSecret as { secrets(tenant, context), tenant?(request), cache? }`,
    );
  for (const name of ['tenant', 'onError'] as const)
    if (resolver[name] !== undefined && typeof resolver[name] !== 'function')
      throw new ConfigError(`resolveSecret.${name}`, `${preset}() needs a function`);
  const cache = resolver.cache ?? {};
  if (typeof cache !== 'object' || cache === null)
    throw new ConfigError('resolveSecret.cache', `${preset}() needs { max, ttlMs, missTtlMs }`);
  return {
    max: count(preset, 'cache.max', cache.max, DEFAULT_MAX, 0),
    ttlMs: count(preset, 'cache.ttlMs', cache.ttlMs, DEFAULT_TTL_MS, 0),
    missTtlMs: count(preset, 'cache.missTtlMs', cache.missTtlMs, DEFAULT_MISS_TTL_MS, 0),
    concurrency: count(preset, 'concurrency', resolver.concurrency, DEFAULT_CONCURRENCY, 1),
    timeoutMs: count(preset, 'timeoutMs', resolver.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
  };
}

/** Runs `work` with a signal aborted after `ms`; resolves `undefined` then, whatever `work` does. */
function within<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T | undefined>,
  onTimeout: (error: Error) => void,
): Promise<T | undefined> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      const error = new Error(`the secret lookup took longer than ${ms} ms`);
      controller.abort(error);
      onTimeout(error);
      resolve(undefined);
    }, ms);
    timer.unref?.();
  });
  return Promise.race([work(controller.signal), deadline]).finally(() => clearTimeout(timer));
}

type Settings = ReturnType<typeof settings>;

/**
 * The lookup of one preset's `resolveSecret`: cache first (found and unknown tenants apart), then
 * the lookup already running for that tenant, then a new one once a place is free, all within
 * `timeoutMs`. A lookup past its deadline is given up (its signal aborted, its place freed).
 */
export function resolverCache<S, K>(
  preset: string,
  resolver: SecretResolver<S>,
  prepare: (secret: S) => K,
  now: () => number = Date.now,
): ResolverCache<K> {
  const checked = settings(preset, resolver as SecretResolver<unknown>);
  return new CachedResolver(resolver, checked, prepare, now);
}

/** A resolver with its caches, its running lookups and its cap on lookups at once. */
class CachedResolver<S, K> implements ResolverCache<K> {
  readonly scoped: boolean;
  private readonly found: ExpiringLru<readonly K[]>;
  private readonly unknown: ExpiringLru<true>;
  private readonly pending = new Map<string, Promise<readonly K[] | undefined>>();
  private readonly slots: Slots;
  /** The resolver's functions, taken once as the preset was built and called on their own. */
  private readonly tenantOf: SecretResolver<S>['tenant'];
  private readonly secretsOf: SecretResolver<S>['secrets'];
  private readonly onError: SecretResolver<S>['onError'];

  constructor(
    resolver: SecretResolver<S>,
    private readonly limits: Settings,
    private readonly prepare: (secret: S) => K,
    private readonly now: () => number,
  ) {
    ({ tenant: this.tenantOf, secrets: this.secretsOf, onError: this.onError } = resolver);
    this.scoped = this.tenantOf !== undefined;
    this.found = new ExpiringLru(limits.max);
    this.unknown = new ExpiringLru(limits.max);
    this.slots = new Slots(limits.concurrency);
  }

  async lookup(request: HttpRequest): Promise<Candidates<K> | undefined> {
    const tenant = this.tenantFor(request);
    if (tenant === null) return undefined;
    const cacheKey = tenant ?? '';
    const at = this.now();
    const cached = this.found.get(cacheKey, at);
    if (cached !== undefined) return { keys: cached, tenant };
    if (this.unknown.get(cacheKey, at) !== undefined) return undefined;
    const keys = await (this.pending.get(cacheKey) ?? this.start(tenant, request));
    return keys === undefined || keys.length === 0 ? undefined : { keys, tenant };
  }

  peek(request: HttpRequest): readonly K[] | undefined {
    const tenant = this.tenantFor(request);
    return tenant === null ? undefined : this.found.get(tenant ?? '', this.now());
  }

  /** The request's tenant: `null` when the request names none the receipt key can carry. */
  private tenantFor(request: HttpRequest): string | undefined | null {
    const { tenantOf } = this;
    if (tenantOf === undefined) return undefined;
    try {
      const tenant = tenantOf(request);
      return validTenant(tenant) ? tenant : null;
    } catch {
      return null;
    }
  }

  /** A new lookup of `tenant` within `timeoutMs`, shared by the requests that ask meanwhile. */
  private start(tenant: string | undefined, request: HttpRequest) {
    const cacheKey = tenant ?? '';
    const lookup = within<readonly K[]>(
      this.limits.timeoutMs,
      (signal) => this.load(tenant, request, signal),
      (error) => this.report(error, tenant),
    ).then((keys) => {
      if (this.pending.get(cacheKey) === lookup) this.pending.delete(cacheKey);
      return keys;
    });
    this.pending.set(cacheKey, lookup);
    return lookup;
  }

  /** Asks the resolver once a place is free, and caches what it found (or that it found nothing). */
  private async load(tenant: string | undefined, request: HttpRequest, signal: AbortSignal) {
    const release = await this.slots.take(signal);
    if (release === undefined) return undefined;
    try {
      const { secretsOf } = this;
      const keys = listOf(await secretsOf(tenant, { request, signal })).map(this.prepare);
      const cacheKey = tenant ?? '';
      if (keys.length === 0) this.unknown.set(cacheKey, true, this.now() + this.limits.missTtlMs);
      else this.found.set(cacheKey, keys, this.now() + this.limits.ttlMs);
      return keys;
    } catch (error) {
      if (!signal.aborted) this.report(error, tenant);
      return undefined;
    } finally {
      release();
    }
  }

  private report(error: unknown, tenant: string | undefined): void {
    try {
      const { onError } = this;
      onError?.(error, tenant);
    } catch {
      // An observer never changes an answer.
    }
  }
}
