/**
 * @module The guard's options: {@link GuardOptions}, checked once into a {@link GuardConfig} by
 * {@link resolveGuardOptions}, and the per-call {@link RunOptions}.
 */
import { createHash } from 'node:crypto';
import { DAY, DEFAULT_STALE_AFTER_SECONDS, MAX_FINGERPRINT_LENGTH, SECOND } from './constants';
import { type EffectKeys, effectKeysFor } from './effect-key';
import { ConfigError } from './errors';
import { positiveAmount } from './positive-amount';
import { givenName, renamedOption } from './renamed-option';
import { windowsLongerThan } from './retention';
import type { PurgeInput } from './store-contract';
import type { Codec, GuardEvent, Store } from './types';

/** Options of {@link IdempotencyGuard}. Every one is optional. */
export interface GuardOptions<R = unknown> {
  /**
   * Age after which a `processing` claim counts as abandoned (its worker died) and the next
   * delivery takes it over. Set it above your slowest real handler run. Defaults to 300.
   */
  staleAfterSeconds?: number;
  /** Milliseconds since the epoch. Serves stores with a `'caller'` clock and tests. Defaults to `Date.now`. */
  clock?: () => number;
  /** How results are stored and read back. Defaults to JSON. */
  codec?: Codec<R>;
  /**
   * Run the handler and the completion in one store transaction, so that its business writes and
   * the receipt commit together or not at all (an exactly-once effect). Needs a store with
   * `capabilities.transactional`. Defaults to `false`.
   */
  transactional?: boolean;
  /**
   * Transactional mode: the longest a handler's transaction may stay open, in seconds. At the
   * deadline the guard rolls the transaction back, marks the receipt `failed` and throws
   * {@link HandlerTimeout} (503 over HTTP), so a hung handler never pins a connection, a SQLite
   * write lock or row locks a takeover would wait on. Must be shorter than `staleAfterSeconds`;
   * defaults to `staleAfterSeconds` minus 10 % (at most 30 s less).
   */
  handlerTimeoutSeconds?: number;
  /** Receives events (claimed, replayed, claim-lost, …). Errors it throws are ignored. */
  onEvent?: (event: GuardEvent) => void;
  /**
   * Mixed into every `effectKey(name)` of this guard's runs: set it (a name of your app, 1 to 200
   * characters) when two apps receive the same provider's events and call the same outside
   * account, so their effect keys differ. Every guard of one app (each instance, the inbox
   * worker) must use the same value; changing it changes every key. Defaults to none.
   */
  effectKeyNamespace?: string;
}

/** Per-call options of {@link IdempotencyGuard.run} and {@link IdempotencyGuard.claim}. */
export interface RunOptions {
  /** Hash of the request. The same key arriving with another fingerprint is refused with `FingerprintMismatch`. */
  fingerprint?: string | null;
  /** Overrides the guard's `transactional` for this call of `run` (a ticket's caller chooses `transaction()` itself). */
  transactional?: boolean;
  /**
   * The request was authenticated (a signature or secret check passed). Only then may a request
   * without a fingerprint be answered with a receipt that has one; otherwise that is a mismatch,
   * so a caller who knows nothing but the id never reads the stored answer.
   */
  verified?: boolean;
  /**
   * Ends the run early when it aborts (a stopping worker, a deadline of the caller's own): a
   * transactional run is rolled back and its receipt marked `failed`, as at the handler deadline;
   * a run without a transaction stops waiting for the handler and leaves the receipt `processing`
   * (should the handler still finish, its result is recorded if the claim is still current). `run`
   * then rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** The default codec. It cannot check what it decodes: that is taken to be the `R` the handler returned. */
const jsonCodec: Codec<unknown> = {
  encode: (value) => {
    const text = JSON.stringify(value);
    // JSON.stringify(undefined) is undefined: store it as null rather than fail.
    return text === undefined ? 'null' : text;
  },
  decode: (text) => JSON.parse(text),
};

/** Whether `codec` is the default JSON codec (an HTTP answer is then stored as its own JSON text). */
export function isJsonCodec(codec: Codec<unknown>): boolean {
  return codec === jsonCodec;
}

/** Default handler deadline: 10 % under the stale threshold, at most 30 s under it. */
function defaultHandlerTimeoutSeconds(staleAfterSeconds: number): number {
  return staleAfterSeconds - Math.min(30, staleAfterSeconds / 10);
}

/** The guard's options, checked, with their defaults applied. */
export interface GuardConfig<R> {
  readonly staleAfterMs: number;
  readonly clock: () => number;
  readonly codec: Codec<R>;
  readonly transactional: boolean;
  readonly handlerTimeoutMs: number;
  readonly onEvent: ((event: GuardEvent) => void) | undefined;
  /** Each run's `effectKey`, under the `effectKeyNamespace` option. */
  readonly effectKeys: EffectKeys;
}

/**
 * Checks `store` and `options` for {@link IdempotencyGuard}'s constructor.
 * @throws {ConfigError} naming the first invalid option.
 */
export function resolveGuardOptions<R, Tx>(
  store: Store<Tx>,
  options: GuardOptions<R>,
): GuardConfig<R> {
  if (!store || typeof store.claim !== 'function' || typeof store.reclaim !== 'function') {
    throw new ConfigError(
      'store',
      'must implement the Store interface (claim, reclaim, complete, fail, find, purge)',
    );
  }
  const {
    staleAfterSeconds = DEFAULT_STALE_AFTER_SECONDS,
    clock = Date.now,
    codec = jsonCodec as Codec<R>,
    transactional = false,
    onEvent,
  } = options;
  positiveAmount('staleAfterSeconds', staleAfterSeconds, 'seconds');
  if (typeof clock !== 'function')
    throw new ConfigError('clock', 'must be a function returning milliseconds since the epoch');
  if (!codec || typeof codec.encode !== 'function' || typeof codec.decode !== 'function') {
    throw new ConfigError('codec', 'must have encode(value) and decode(text) functions');
  }
  if (typeof transactional !== 'boolean')
    throw new ConfigError('transactional', 'must be a boolean');
  if (transactional && !store.capabilities.transactional) {
    throw new ConfigError(
      'transactional',
      'this store does not support transactions (capabilities.transactional is false)',
    );
  }
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  return {
    staleAfterMs: staleAfterSeconds * SECOND,
    clock,
    codec,
    transactional,
    handlerTimeoutMs: handlerTimeoutSecondsOf(options, staleAfterSeconds) * SECOND,
    onEvent,
    effectKeys: effectKeysFor(options.effectKeyNamespace),
  };
}

/**
 * The handler deadline in seconds: the option, else its default under `staleAfterSeconds`.
 * @throws {ConfigError} naming `handlerTimeoutSeconds` unless it is positive and below `staleAfterSeconds`.
 */
function handlerTimeoutSecondsOf(
  options: GuardOptions<unknown>,
  staleAfterSeconds: number,
): number {
  const { handlerTimeoutSeconds = defaultHandlerTimeoutSeconds(staleAfterSeconds) } = options;
  if (
    typeof handlerTimeoutSeconds !== 'number' ||
    !Number.isFinite(handlerTimeoutSeconds) ||
    handlerTimeoutSeconds <= 0 ||
    handlerTimeoutSeconds >= staleAfterSeconds
  ) {
    throw new ConfigError(
      'handlerTimeoutSeconds',
      `must be a positive number of seconds below staleAfterSeconds (${staleAfterSeconds}), got ${String(handlerTimeoutSeconds)}`,
    );
  }
  return handlerTimeoutSeconds;
}

/** A fingerprint that fits the column: a longer one is hashed (SHA-256, hex), never truncated by a database. */
export function fittedFingerprint(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') {
    throw new ConfigError(
      'fingerprint',
      `must be a non-empty string or null, got ${value === '' ? 'an empty string' : typeof value}`,
    );
  }
  return value.length <= MAX_FINGERPRINT_LENGTH && !/[^\x20-\x7e]/.test(value)
    ? value
    : createHash('sha256').update(value).digest('hex');
}

/** What `guard.purge` takes. */
export interface GuardPurgeOptions {
  /** How old a finished receipt must be, in days, to be deleted. Required. */
  retentionDays: number;
  /** Rows one statement deletes at most (a chunk). Defaults to the store's (1000). */
  chunkSize?: number;
  /** @deprecated Use `chunkSize`. */
  batchSize?: number;
  /** Only this provider's receipts. */
  provider?: string;
  /** Purge even receipts a preset on this store asks to keep longer. */
  force?: boolean;
}

/**
 * Checks the options of `guard.purge` on `store` (a retention in days, a chunk size, a provider):
 * the store's purge input, but for its `now`.
 * @throws {ConfigError} naming the first invalid option, or `retentionDays` when it is shorter
 *   than the retry window of a preset an adapter serves on `store` (unless `force`).
 */
export function checkPurgeOptions(
  store: object,
  options: GuardPurgeOptions,
): Omit<PurgeInput, 'now'> {
  const { retentionDays, provider, force } = options ?? ({} as never);
  const chunkSize = renamedOption(options ?? {}, 'chunkSize', 'batchSize');
  if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays < 0) {
    throw new ConfigError(
      'retentionDays',
      `must be a number of days >= 0, got ${String(retentionDays)}`,
    );
  }
  if (chunkSize !== undefined && (!Number.isSafeInteger(chunkSize) || chunkSize < 1)) {
    throw new ConfigError(
      givenName(options, 'chunkSize', 'batchSize'),
      `must be a positive integer, got ${String(chunkSize)}`,
    );
  }
  if (provider !== undefined && (typeof provider !== 'string' || provider === '')) {
    throw new ConfigError('provider', `must be a provider name, got ${String(provider)}`);
  }
  const kept = force === true ? [] : windowsLongerThan(store, retentionDays, provider);
  if (kept.length > 0)
    throw new ConfigError(
      'retentionDays',
      `${retentionDays} days is shorter than the retry window of ${kept.map(([name, days]) => `${name} (${days} days)`).join(', ')}: a redelivery after the purge would run again. Purge each provider with its preset's retentionDays, or pass force: true`,
    );
  return {
    olderThanMs: retentionDays * DAY,
    // Both names for one minor version: a store written before the rename reads `batchSize`.
    ...(chunkSize ? { chunkSize, batchSize: chunkSize } : {}),
    ...(provider !== undefined ? { provider } : {}),
  };
}
