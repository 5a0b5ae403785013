/**
 * @module The Store contract: what a receipts store implements, and nothing more. A store offers a
 * few atomic primitives (claim, take over, settle, read, purge, and for groups of first runs:
 * which keys are known, record first runs); what a receipt means (when it is stale, what is
 * replayed, what a completed receipt holds) is decided once, by the guard, over these primitives.
 * No store writes a receipt any other way.
 */
import type { ReceiptStatus } from './constants';
import type { KeyLike } from './request-key';

/** The stored state of one key: one row of the receipts table. */
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
  /**
   * `false` only for a store that cannot write several receipts all or nothing (a DynamoDB-compatible
   * server without `TransactWriteItems`): it has no {@link Store.known} nor {@link Store.recordFirst},
   * and the inbox worker runs every delivery on its own. Absent: the store has both, as the
   * conformance suite requires.
   */
  readonly groups?: boolean;
  /**
   * Keeps the counts of ignored events (a route set's events no route takes): `true` for a store
   * with {@link Store.addIgnored} and {@link Store.ignoredCounts}, `false` for one without them.
   * Every store of this project declares it; the conformance suite checks both ways. Optional in
   * the type only so that stores written against the older contract keep compiling.
   */
  readonly ignoredCounts?: boolean;
}

/** Time passed to every store call; a `'store'`-clock store ignores it. Milliseconds since the epoch. */
export interface At {
  readonly now: number;
}

/** What {@link Store.claim} takes. */
export type ClaimInput = At & { readonly fingerprint: string | null };

/** What {@link Store.reclaim} takes. */
export type ReclaimInput = At & {
  readonly attempts: number;
  readonly staleAfterMs: number;
  readonly fingerprint?: string | null;
};

/** The claim a settling write is fenced by ({@link Store.complete}, {@link Store.fail}). */
export type ClaimFence = At & { readonly attempts: number; readonly claimedAt?: Date };

/** What {@link Store.complete} takes. */
export type CompleteInput = ClaimFence & { readonly response: string };

/** What {@link Store.fail} takes. */
export type FailInput = ClaimFence & { readonly error: string };

/** What {@link Store.purge} takes. */
export type PurgeInput = At & {
  readonly olderThanMs: number;
  /** Rows one statement deletes at most (a chunk); read it with `purgeChunkSize(input)`. */
  readonly chunkSize?: number;
  /** @deprecated Use `chunkSize`. */
  readonly batchSize?: number;
  readonly provider?: string;
};

/**
 * One first run that completed without a claim of its own, as {@link Store.recordFirst} records
 * it: the inbox worker's groups run several first deliveries in one transaction and record them
 * together.
 */
export interface FirstRun {
  readonly key: KeyLike;
  /** The handler's result as the guard's codec encoded it: the receipt's `response`, byte for byte. */
  readonly response: string;
  /**
   * How long this run's own handler ran, in milliseconds: the receipt's `claimedAt` is this long
   * before its `finishedAt`, as a run that claimed first would have recorded it. Stored in whole
   * milliseconds (rounded); a negative or non-finite value counts as 0.
   */
  readonly handlerMs: number;
}

/**
 * How many events of one provider and type a route set ignored in one hour: one entry of
 * {@link Store.addIgnored}. The guard tallies them in memory and writes one entry per provider,
 * type and hour every few seconds, never one per event.
 */
export interface IgnoredCount {
  readonly provider: string;
  /** The event's type as its preset names it (bounded in length), `(unnamed)` or `(other)`. */
  readonly type: string;
  /** The hour the events arrived in: epoch milliseconds, a whole multiple of an hour. */
  readonly hour: number;
  /** How many: a whole number above 0. */
  readonly count: number;
}

/** What {@link Store.ignoredCounts} takes. */
export type IgnoredQuery = At & {
  /** Counts of the hours starting at or after this time (epoch milliseconds, rounded down to its hour). */
  readonly since: number;
  /** Only this provider's counts. */
  readonly provider?: string;
};

/** The ignored events of one provider and type since the query's time: one row of {@link Store.ignoredCounts}. */
export interface IgnoredTotal {
  readonly provider: string;
  readonly type: string;
  readonly count: number;
  /** The latest hour (its start) with a count. */
  readonly lastHour: Date;
}

/**
 * The primitive, atomic operations the guard needs. Policy (what is stale, replay, fingerprints,
 * retries, what a completed receipt holds) lives in the guard; a store only guarantees that each
 * call below is atomic, also when many callers race on one key. `runStoreConformance` from
 * `@webhook-idempotency/core/testing` checks a store against this contract.
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
  claim(key: KeyLike, input: ClaimInput): Promise<ClaimResult>;

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
   * attempt's, so that the request that runs now is the one a duplicate is compared with. Without
   * the field, the stored fingerprint stays.
   */
  reclaim(key: KeyLike, input: ReclaimInput): Promise<ObservedReceipt | null>;

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
  complete(key: KeyLike, input: CompleteInput, transaction?: Tx): Promise<boolean>;

  /**
   * Marks the receipt `failed` with the error text and `finishedAt = now`, fenced exactly like
   * {@link Store.complete} (on `attempts`, and on `claimedAt` when given). Returns `false` when
   * the claim was lost.
   */
  fail(key: KeyLike, input: FailInput): Promise<boolean>;

  /** Reads the receipt for a key, or `null`. A plain read: claims nothing. */
  find(key: KeyLike, input: At): Promise<ObservedReceipt | null>;

  /**
   * Deletes `completed` and `failed` receipts whose `finishedAt` is at least `olderThanMs` before
   * now (`0`: every finished receipt); never a `processing` one, however old. With `provider`, only that provider's receipts.
   * Returns how many were deleted. May delete in chunks of `chunkSize` rows
   * (`purgeChunkSize(input)` reads it, under its deprecated name `batchSize` too). A store that
   * keeps ignored-event counts deletes with them the totals of hours that ended at least
   * `olderThanMs` before `now` (of `provider` when given); they are not in the returned number.
   */
  purge(input: PurgeInput): Promise<number>;

  /**
   * Reads which of `keys` have a receipt, whatever its status: one boolean per key, in the order
   * given (`true`: the store holds a receipt for that key). A plain read: claims nothing. With
   * `transaction` (a transactional store), the read is part of it.
   *
   * A group of first runs (the inbox worker's) reads its keys with it first: a key that has a
   * receipt leaves the group and runs on its own, where its receipt decides (replay, in progress,
   * take over).
   *
   * Optional in the type only so that stores written against the older contract keep compiling;
   * `runStoreConformance` requires it, and the guard groups first runs only over a store that has
   * both it and {@link Store.recordFirst}.
   */
  known?(keys: readonly KeyLike[], input: At, transaction?: Tx): Promise<boolean[]>;

  /**
   * Records a `completed` receipt for every entry, when none of their keys has a receipt: each
   * with `status = 'completed'`, the entry's `response`, `attempts = 1`, `fingerprint = null`,
   * `error = null`, `finishedAt = now` and `claimedAt = now − handlerMs` (now by the store's own
   * clock for a `'store'`-clock store). Resolves `true` when every receipt was written. Resolves
   * `false` when any entry's key has a receipt already, whatever its status, or when two entries
   * name one key: then nothing is written and no receipt changes (an existing receipt is never
   * overwritten). An empty list resolves `true` and writes nothing.
   *
   * What a group of first runs is completed with: the inbox worker runs several first deliveries'
   * handlers one after another in one transaction, then records their receipts with one call, so
   * that they commit with the handlers' writes.
   *
   * Atomicity: all or nothing. Of a `recordFirst` and any concurrent {@link Store.claim} or
   * `recordFirst` naming one of its keys, across every process sharing the store, exactly one
   * writes that key's receipt (a claim that loses gets the recorded receipt). Must never be "read,
   * then insert": a key written by someone else between a read and the insert must turn the call
   * into `false`, with nothing of it written. When `transaction` is given, the write is part of it
   * and commits or rolls back with it; a `false` leaves nothing of the call in the transaction,
   * and the transaction usable.
   *
   * Optional in the type only, like {@link Store.known}.
   */
  recordFirst?(entries: readonly FirstRun[], input: At, transaction?: Tx): Promise<boolean>;

  /**
   * Adds `counts` to the stored ignored-event counts, each to its provider's, type's and hour's
   * total (a new total starts at 0). An empty list writes nothing. Atomic per entry: of concurrent
   * calls adding to one total, across every process sharing the store, none is lost.
   *
   * Only for a store whose `capabilities.ignoredCounts` is `true`.
   */
  addIgnored?(counts: readonly IgnoredCount[], input: At): Promise<void>;

  /**
   * The ignored-event totals of every provider and type (of `provider` when given) over the hours
   * from `since` on, the largest first. Only for a store whose `capabilities.ignoredCounts` is `true`.
   */
  ignoredCounts?(query: IgnoredQuery): Promise<IgnoredTotal[]>;

  /**
   * Transactional stores only: runs `work` inside a database transaction and commits when it
   * resolves, rolls back when it rejects. The guard runs the handler and {@link Store.complete}
   * inside it, so the business writes and the receipt commit together.
   *
   * Bounded, so that a hung handler never holds a connection and its locks past its deadline:
   * when `options.signal` aborts (the guard's handler deadline), the store ends the transaction at
   * once (rollback, or closing the connection when a statement is in flight) and rejects; the
   * handle passed to `work` refuses every call once the transaction has ended, whichever way it
   * ended ({@link TransactionClosed}). `options.timeoutMs` is the same deadline, for stores that
   * can also enforce it server-side (lock and idle timeouts).
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
