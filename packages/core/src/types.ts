/** @module The shared vocabulary: receipts, the Store contract, outcomes and handler context. */
import type { DeliveryOutcome, ReceiptStatus } from './constants';
import type { KeyLike, RequestKey } from './request-key';
import type { RouteEvent } from './routing/events';

/** The stored state of one delivery (one row of the receipts table, DESIGN.md §5). */
export interface Receipt {
  readonly provider: string;
  readonly externalId: string;
  readonly status: ReceiptStatus;
  /** The handler's result as the guard's codec encoded it; `null` until completed. Replayed byte for byte. */
  readonly response: string | null;
  /** How many times a handler was started for this key; also the fencing token. */
  readonly attempts: number;
  /** The last failure's message, truncated, without a stack; `null` otherwise. */
  readonly error: string | null;
  /** Hash of the request that claimed the key, when one was given. */
  readonly fingerprint: string | null;
  /** When the current claim was taken (by the store's clock). */
  readonly claimedAt: Date;
  /** When the receipt became `completed` or `failed`; `null` while `processing`. */
  readonly finishedAt: Date | null;
}

/** A receipt as read from a store, with the store's own view of how old its claim is. */
export interface ObservedReceipt extends Receipt {
  /**
   * Milliseconds between `claimedAt` and the store's "now" at the moment of the read. SQL stores
   * measure it with the database clock, so app servers with skewed clocks agree on staleness.
   */
  readonly claimAgeMs: number;
}

/** Result of {@link Store.claim}. */
export type ClaimResult =
  | { readonly won: true; readonly receipt: ObservedReceipt }
  | { readonly won: false; readonly receipt: ObservedReceipt };

/** What a store can and cannot do; shared tests branch on these, never on a store's name. */
export interface StoreCapabilities {
  /** Safe to share between processes and machines (the database arbitrates). */
  readonly crossProcess: boolean;
  /** Implements {@link Store.withTransaction} for transactional completion. */
  readonly transactional: boolean;
  /**
   * Whose clock times the receipts: `'caller'` uses the `now` passed to each call (the guard's
   * injectable clock); `'store'` uses its own (a database's), and ignores `now`.
   */
  readonly clock: 'caller' | 'store';
  /**
   * The longest response (the codec's encoded text, in UTF-8 bytes) the store can keep, when it
   * has a limit of its own (a DynamoDB item holds 400 KB); absent: none. A store with one refuses
   * a longer response in {@link Store.complete} with `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE`.
   */
  readonly maxResponseBytes?: number;
}

/** Time passed to every store call; a `'store'`-clock store ignores it. Milliseconds since the epoch. */
export interface At {
  readonly now: number;
}

/**
 * The primitive, atomic operations the guard needs. Policy (what is stale, replay, fingerprints,
 * retries) lives in the guard; a store only guarantees that each call below is atomic, also when
 * many callers race on one key. `runStoreConformance` from `@webhook-idempotency/core/testing`
 * checks a store against this contract.
 *
 * Every method may reject; the guard wraps such failures in a `StoreError`.
 *
 * @typeParam Tx the transaction handle a transactional store gives the handler.
 */
export interface Store<Tx = never> {
  /** What this store supports. */
  readonly capabilities: StoreCapabilities;

  /**
   * Inserts a `processing` receipt with `attempts = 1`, `claimedAt = now` and the fingerprint,
   * unless a receipt for the key exists.
   *
   * Atomicity: of any number of concurrent claims on one key, across every process sharing the
   * store, exactly one returns `won: true`. The others get `won: false` and the existing receipt.
   * Must never be "read, then insert if absent".
   */
  claim(key: KeyLike, input: At & { readonly fingerprint: string | null }): Promise<ClaimResult>;

  /**
   * Takes over a receipt whose previous run is over: sets `processing`, `attempts = attempts + 1`,
   * `claimedAt = now`, clears `error`, on the condition that `attempts` still equals the value
   * seen and the receipt is either `failed`, or `processing` with a claim at least `staleAfterMs`
   * old.
   *
   * Atomicity: one conditional write (compare-and-set on `attempts`). Of concurrent take-overs
   * with the same `attempts`, at most one wins; the winner gets the new receipt, the others `null`.
   * A `completed` receipt is never taken over. When `fingerprint` is given (a string or `null`),
   * the receipt records it in the same write: the new delivery's fingerprint replaces the failed
   * attempt's (DESIGN.md §10). Without the field, the stored fingerprint stays.
   */
  reclaim(
    key: KeyLike,
    input: At & {
      readonly attempts: number;
      readonly staleAfterMs: number;
      readonly fingerprint?: string | null;
    },
  ): Promise<ObservedReceipt | null>;

  /**
   * Marks the receipt `completed` with the response and `finishedAt = now`, on the condition that
   * it is `processing` with exactly `attempts` (the fencing token the worker claimed with) and,
   * when `claimedAt` is given, with exactly that claim time.
   * When `transaction` is given, the write is part of it and commits or rolls back with it.
   *
   * `claimedAt` is the `claimedAt` of the receipt the worker's {@link Store.claim} or
   * {@link Store.reclaim} returned, as returned (to the millisecond). `attempts` alone does not
   * identify a claim: after a purge the key's next claim starts again at `attempts = 1`, so a
   * worker that claimed with 1 and stalled would pass an attempts-only fence. Stores should fence
   * on `claimedAt` too whenever it is given (the guard always gives it); it is optional only so
   * that stores written against the older contract keep compiling.
   *
   * Atomicity: one conditional write. Returns `false` (and changes nothing) when the claim was
   * taken over or the receipt is no longer `processing`.
   */
  complete(
    key: KeyLike,
    input: At & { readonly attempts: number; readonly claimedAt?: Date; readonly response: string },
    transaction?: Tx,
  ): Promise<boolean>;

  /**
   * Marks the receipt `failed` with the error text and `finishedAt = now`, fenced exactly like
   * {@link Store.complete} (on `attempts`, and on `claimedAt` when given). Returns `false` when
   * the claim was lost.
   */
  fail(
    key: KeyLike,
    input: At & { readonly attempts: number; readonly claimedAt?: Date; readonly error: string },
  ): Promise<boolean>;

  /** Reads the receipt for a key, or `null`. A plain read: claims nothing. */
  find(key: KeyLike, input: At): Promise<ObservedReceipt | null>;

  /**
   * Deletes `completed` and `failed` receipts whose `finishedAt` is at least `olderThanMs` before
   * now (`0`: every finished receipt); never a `processing` one, however old. With `provider`, only that provider's receipts.
   * Returns how many were deleted. May delete in batches of `batchSize` rows.
   */
  purge(
    input: At & {
      readonly olderThanMs: number;
      readonly batchSize?: number;
      readonly provider?: string;
    },
  ): Promise<number>;

  /**
   * Transactional stores only: runs `work` inside a database transaction and commits when it
   * resolves, rolls back when it rejects. The guard runs the handler and {@link Store.complete}
   * inside it, so the business writes and the receipt commit together.
   *
   * Bounded (DESIGN.md §10): when `options.signal` aborts (the guard's handler deadline), the store
   * ends the transaction at once (rollback, or closing the connection when a statement is in
   * flight) and rejects; the handle passed to `work` refuses every call once the transaction has
   * ended, whichever way it ended ({@link TransactionClosed}). `options.timeoutMs` is the same
   * deadline, for stores that can also enforce it server-side (lock and idle timeouts).
   *
   * A lost connection is the store's failure, not the work's: when `work` rejects and the
   * transaction's connection has failed under it (the database closed it, restarted, the network
   * cut it: the rollback cannot be sent, or the driver reported the connection broken), reject
   * with a `StoreError` (core's) whose `cause` is what `work` rejected with. The guard then answers
   * a store failure (503) instead of passing the handler's error (often the driver's own, from its
   * next statement) on as the handler's.
   */
  withTransaction?<T>(
    work: (transaction: Tx) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
}

/** What the guard passes to {@link Store.withTransaction}. */
export interface TransactionOptions {
  /** Aborts at the handler deadline: end the transaction now and reject. */
  readonly signal?: AbortSignal;
  /** The deadline in milliseconds from the start of the transaction. */
  readonly timeoutMs?: number;
}

/** Encodes handler results for storage and decodes them for replay. Defaults to JSON. */
export interface Codec<R> {
  encode(value: R): string;
  decode(text: string): R;
}

/** What the guard hands the handler. */
export interface RunContext<Tx = never> {
  /** The key being handled. */
  readonly key: RequestKey;
  /** This run's attempt number (1 on a first delivery). */
  readonly attempts: number;
  /** True when this run took over a stale claim or retried a failed one. */
  readonly isRetry: boolean;
  /**
   * In transactional mode, the open transaction: write your business rows through it and they
   * commit together with the receipt. `undefined` otherwise.
   */
  readonly transaction: Tx | undefined;
}

/** What {@link IdempotencyGuard.run} resolves with. */
export interface Outcome<R> {
  /** What to answer: the handler's result, or on a replay the stored one. */
  readonly response: R;
  /** True when the handler did not run this time and `response` is the stored result. */
  readonly isReplay: boolean;
  /** How many times the handler has been started for this key. */
  readonly attempts: number;
}

/**
 * Things the guard reports without throwing: for logs, metrics and traces (docs/observability.md).
 * A discriminated union on `type`. Every event carries `durationMs`, the elapsed time of what it
 * reports, in milliseconds (`performance.now()`, so fractional): clocks are read only when an
 * `onEvent` listener is configured.
 *
 * Each `guard.run` call and each request an HTTP adapter guards ends with exactly one `delivered`
 * event (its outcome, total time, handler time and, over HTTP, the status); the others report the
 * steps on the way. Code that settles tickets itself (`guard.claim`) gets the step events only.
 */
export type GuardEvent =
  /** This delivery won the claim of a new key. `durationMs`: the claim's round trip to the store. */
  | {
      readonly type: 'claimed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly durationMs: number;
    }
  /**
   * This delivery took over an earlier attempt: a `failed` receipt, or (`stale: true`) a
   * `processing` claim older than `staleAfterSeconds`, whose worker is taken to have died.
   * `durationMs`: from the start of the claim to the takeover written.
   */
  | {
      readonly type: 'retried';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly stale: boolean;
      readonly durationMs: number;
    }
  /**
   * The result was recorded (`completed`). `handlerMs`: the handler's run; `durationMs`: writing
   * the receipt (in transactional mode, the completion and the commit).
   */
  | {
      readonly type: 'completed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly handlerMs: number;
      readonly durationMs: number;
    }
  /** A duplicate of a completed delivery. `durationMs`: the lookup, from the claim to the decoded stored result. */
  | {
      readonly type: 'replayed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly durationMs: number;
    }
  /** Another worker holds a fresh claim. `durationMs`: the lookup. */
  | {
      readonly type: 'in-progress';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly retryAfterSeconds: number;
      readonly durationMs: number;
    }
  /**
   * The receipt was marked `failed` (also by a background retry of that write). `handlerMs`: the
   * handler's run until it failed; `durationMs`: writing the receipt.
   */
  | {
      readonly type: 'failed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly error: string;
      readonly handlerMs: number;
      readonly durationMs: number;
    }
  /** The id arrived again with another fingerprint. `durationMs`: the lookup. */
  | { readonly type: 'fingerprint-mismatch'; readonly key: RequestKey; readonly durationMs: number }
  /**
   * A transactional run outlived `handlerTimeoutSeconds`: rolled back, receipt marked failed.
   * `durationMs`: from the start of the transaction to the deadline.
   */
  | {
      readonly type: 'handler-timeout';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly timeoutMs: number;
      readonly durationMs: number;
    }
  /** A worker whose claim was taken over tried to record its result; the write was refused. `durationMs`: that write. */
  | {
      readonly type: 'claim-lost';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly operation: 'complete' | 'fail';
      readonly durationMs: number;
    }
  /** A store call failed. `durationMs`: that call, until it failed. */
  | {
      readonly type: 'store-error';
      readonly key: RequestKey | undefined;
      readonly operation: string;
      readonly error: unknown;
      readonly durationMs: number;
    }
  /** A route set's answer before any claim: `ignored` or `refused` (docs/routing.md). */
  | RouteEvent
  /**
   * One delivery ended: emitted once per `guard.run` call and once per request an HTTP adapter
   * guarded with a valid key. `attempts`: the attempt that ran or was replayed, 0 when neither
   * (refused before a receipt was read). `durationMs`: the whole delivery (over HTTP from the
   * adapter's call, verification included, to the recorded answer); `handlerMs`: the handler's run,
   * `undefined` when it did not run. `status`: over HTTP, the status of the answer when the engine
   * knows it (`undefined` when the handler threw and the framework's error handling answers, or on
   * a pass-through); always `undefined` from `guard.run`.
   */
  | {
      readonly type: 'delivered';
      readonly key: RequestKey;
      readonly outcome: DeliveryOutcome;
      readonly attempts: number;
      readonly durationMs: number;
      readonly handlerMs: number | undefined;
      readonly status: number | undefined;
    };
