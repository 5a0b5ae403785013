/**
 * @module Public types of `ReceiptsAdmin`: what the operations API takes and returns. The repairs'
 * types (release, forget) are core's operator rules', re-exported here under the same names.
 */
import type { ObservedReceipt, ReceiptStatus } from '@webhook-idempotency/core';

export type {
  ExpectedClaim,
  ForgetOptions,
  ForgetResult,
  ReleaseOptions,
  ReleaseResult,
} from '@webhook-idempotency/core/operations';

/** Options of `new ReceiptsAdmin(db, options)`. Every one is optional. */
export interface ReceiptsAdminOptions {
  /** The receipts table, validated like `SqlStoreOptions.table`. Defaults to `'webhook_receipts'`. */
  table?: string;
  /** Milliseconds a statement waits for a pooled connection, as in `SqlStoreOptions`. Defaults to 10 000. */
  acquireTimeoutMs?: number;
}

/** Receipts of one provider by status, with the stuck `processing` ones. */
export interface ProviderCounts {
  /** The provider, or `'*'` in {@link ReceiptsStatus.totals}. */
  readonly provider: string;
  readonly processing: number;
  readonly completed: number;
  readonly failed: number;
  /** `processing` receipts claimed longer ago than the stale threshold: no worker is presumed alive on them. */
  readonly stuck: number;
  /** Age of the oldest `processing` claim (database clock), or `null` when there is none. */
  readonly oldestProcessingAgeMs: number | null;
}

/** Handler time (`finished_at − claimed_at`) of the receipts completed in the window. */
export interface HandlerTimes {
  /** How many durations the percentiles come from: the most recent ones, at most `sampleLimit`. */
  readonly sampled: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What {@link ReceiptsAdmin.status} reports. */
export interface ReceiptsStatus {
  /** The stale threshold the `stuck` counts were judged with. */
  readonly staleAfterMs: number;
  /** Counts per provider, ordered by provider. */
  readonly providers: readonly ProviderCounts[];
  /** The same counts over every provider. */
  readonly totals: ProviderCounts;
  /** Receipts that finished (`completed` or `failed`) in the last `sinceMs` milliseconds. */
  readonly window: {
    readonly sinceMs: number;
    readonly completed: number;
    readonly failed: number;
    /** `failed / (completed + failed)`, between 0 and 1; `null` when nothing finished. */
    readonly failureShare: number | null;
    /** Nearest-rank percentiles of the handler time; `null` when nothing finished. */
    readonly handlerTime: HandlerTimes | null;
  };
}

/** Options of {@link ReceiptsAdmin.status}. */
export interface StatusOptions {
  /** Age after which a `processing` claim counts as stuck: the guard's `staleAfterSeconds` × 1000. */
  readonly staleAfterMs: number;
  /** The window of the finished counts and the handler times, in milliseconds back from now. */
  readonly sinceMs: number;
  /** Most durations read for the percentiles (the most recent first). Defaults to 10 000. */
  readonly sampleLimit?: number;
}

/** A receipt in a listing: everything but the stored answer and the fingerprint. */
export interface ReceiptSummary extends Omit<ObservedReceipt, 'response' | 'fingerprint'> {
  /**
   * Its claim time exactly as the database holds it, as text: ISO 8601 in UTC with six fractional
   * digits (`2026-12-01T21:59:14.601000Z`). `claimedAt` is a `Date`, to the millisecond; this one
   * keeps the microseconds of a column migrated to a finer precision, so a next page that starts
   * after this receipt skips and repeats nothing.
   */
  readonly claimedAtText: string;
}

/** Where a page of {@link ReceiptsAdmin.list} starts: after this receipt (any listed receipt is one). */
export interface ReceiptCursor {
  readonly provider: string;
  readonly externalId: string;
  /** Its claim time, as the listing returned it. */
  readonly claimedAt: Date;
  /**
   * Its exact claim time, as the listing returned it ({@link ReceiptSummary.claimedAtText}): when
   * given, the page starts after it, and `claimedAt` is not read. Without it the cursor is exact
   * to the millisecond only, which a column with microseconds is not.
   */
  readonly claimedAtText?: string;
}

/** Filters of {@link ReceiptsAdmin.list}; they combine with AND. */
export interface ListOptions {
  /** Only receipts in these statuses. */
  readonly status?: ReceiptStatus | readonly ReceiptStatus[];
  /** Only receipts of this provider. */
  readonly provider?: string;
  /** Only `processing` receipts claimed at least this many milliseconds ago (stuck ones). */
  readonly stuckAfterMs?: number;
  /** Only receipts claimed or finished in the last `sinceMs` milliseconds. */
  readonly sinceMs?: number;
  /** Only the receipt(s) with this external id (of every provider unless `provider` is given). */
  readonly externalId?: string;
  /** Only receipts claimed at or after this time. */
  readonly claimedFrom?: Date;
  /** Only receipts claimed before this time. */
  readonly claimedBefore?: Date;
  /**
   * The next page: the receipts after this one in the listing's order (pass the last receipt of
   * the page before). A keyset, never an offset: a page costs the same however deep it is, and
   * rows written meanwhile neither repeat nor push rows off the next page.
   */
  readonly after?: ReceiptCursor;
  /** Most receipts returned, 1 to 10 000. Defaults to 50. */
  readonly limit?: number;
  /**
   * By claim time (then provider and external id): `'newest'` first or `'oldest'` first. Defaults
   * to `'newest'`.
   */
  readonly order?: 'newest' | 'oldest';
}

/** Options of {@link ReceiptsAdmin.activity}. */
export interface ActivityOptions {
  /** The window, in milliseconds back from now (the database clock). */
  readonly sinceMs: number;
  /** The width of one bucket, in milliseconds; at most 1000 buckets fit the window. */
  readonly bucketMs: number;
}

/** The receipts that finished within one bucket of {@link ReceiptsAdmin.activity}. */
export interface ActivityBucket {
  /** The bucket's start (a whole multiple of `bucketMs` since the Unix epoch). */
  readonly start: Date;
  readonly completed: number;
  readonly failed: number;
  /** Mean handler time (`finished_at − claimed_at`) of the completed ones; `null` when none completed. */
  readonly meanHandlerMs: number | null;
  /** Longest handler time of the completed ones; `null` when none completed. */
  readonly maxHandlerMs: number | null;
}

/** What {@link ReceiptsAdmin.activity} reports: every bucket of the window, oldest first, empty ones included. */
export interface ActivityReport {
  readonly sinceMs: number;
  readonly bucketMs: number;
  /** The database clock when it was read: the window ends here. */
  readonly now: Date;
  readonly buckets: readonly ActivityBucket[];
}

/** Options of {@link ReceiptsAdmin.purge}. */
export interface AdminPurgeOptions {
  /** Delete receipts finished longer ago than this; `0` deletes every finished receipt. */
  readonly olderThanMs: number;
  /** Only this provider's receipts. */
  readonly provider?: string;
  /** Rows per `DELETE` statement (a chunk). Defaults to 1000. */
  readonly chunkSize?: number;
  /** @deprecated Use `chunkSize`. */
  readonly batchSize?: number;
  /** Called after each chunk that deleted rows, with the running total of deleted receipts. */
  readonly onChunk?: (deleted: number) => void;
  /** @deprecated Use `onChunk`. */
  readonly onBatch?: (deleted: number) => void;
}

/** Options of {@link ReceiptsAdmin.countPurgeable}: which receipts a purge would delete. */
export type AdminCountOptions = Pick<AdminPurgeOptions, 'olderThanMs' | 'provider'>;
