/** @module The inbox vocabulary (DESIGN.md §13): stored deliveries, their lifecycle and the `InboxStore` contract. */
import type { DeliveryBatcher } from './batcher-types';
import type { Delivery, NewDelivery } from './delivery';
import type { BacklogInput, EndpointEvent, InboxBacklog } from './figures';

/** Where a stored delivery is in its lifecycle. */
export const DeliveryStatus = {
  /** Stored and waiting (a first delivery, or a failed attempt waiting for its backoff to pass). */
  PENDING: 'pending',
  /** Leased by a worker until its visibility timeout; another worker takes it over after that. */
  PROCESSING: 'processing',
  /** The handler ran and committed (or the receipt shows it already had): final. */
  DONE: 'done',
  /** Failed `maxAttempts` times: kept for inspection, never claimed again. */
  DEAD: 'dead',
} as const;
/** One of {@link DeliveryStatus}. */
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

/** A stored delivery with its state, as {@link InboxStore.find} and {@link InboxStore.list} read it. */
export interface StoredDelivery extends Delivery {
  readonly status: DeliveryStatus;
  /** `pending`: when it becomes due; `processing`: when its lease expires. */
  readonly availableAt: Date;
  /** When it became `done` or `dead`; `null` before. */
  readonly finishedAt: Date | null;
  /** The last failure's text, truncated; `null` when none failed. */
  readonly lastError: string | null;
}

/**
 * A stored delivery as {@link InboxStore.list} reads it: its state, and its body's size instead of
 * its bytes and headers (a listing never holds the bodies it does not show).
 */
export interface DeliverySummary extends Omit<StoredDelivery, 'body' | 'headers'> {
  /** The body's size in bytes. */
  readonly bodyBytes: number;
}

/**
 * A lease as a relay holds it ({@link InboxStore.claimRefs}, {@link InboxStore.lapsed}): the
 * reference a queue job carries and the failures so far, never the body or the headers.
 */
export interface LeasedRef extends DeliveryRef {
  /** As {@link Delivery.failures}: failed attempts and lapsed leases before this lease. */
  readonly failures: number;
}

/**
 * The state an operator's repair expects a delivery to be in: the one they were shown. `attempts`
 * only grows (every claim adds one) and no status comes back without a claim, so a delivery with
 * this status and these attempts has not moved since it was read.
 */
export interface ExpectedDelivery<S extends DeliveryStatus = DeliveryStatus> {
  readonly status: S;
  readonly attempts: number;
}

/** The lease a claim gave: the delivery's `id` and the `attempts` it was claimed with. */
export interface DeliveryLease {
  readonly id: number;
  readonly attempts: number;
}

/**
 * Durable storage of inbox deliveries. Each method is atomic; the lease methods
 * ({@link InboxStore.complete}, {@link InboxStore.retry}, {@link InboxStore.bury}) are one
 * conditional write fenced by the lease (`status = 'processing' AND attempts = lease.attempts`),
 * so a worker whose lease expired and was taken over cannot change the new owner's delivery.
 * Every time comes from the store's own clock. `SqlInbox` (`@webhook-idempotency/sql`) implements it.
 */
export interface InboxStore {
  /**
   * Stores `delivery` as `pending`, due now, unless one with the same provider and external id is
   * stored: resolves `true` when this call stored it, `false` for a duplicate (nothing changed).
   * Atomic: of concurrent calls with one key, exactly one resolves `true`.
   */
  enqueue(delivery: NewDelivery): Promise<boolean>;
  /**
   * Leases up to `limit` due deliveries of `providers` (pending and due, or processing with an
   * expired lease), oldest first: each becomes `processing`, `attempts + 1`, available again only
   * after `leaseMs`. Of deliveries sharing a provider and ordering key, only the oldest unfinished
   * one is ever leased. Concurrent claims never lease one delivery twice.
   */
  claim(input: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly leaseMs: number;
  }): Promise<Delivery[]>;
  /**
   * As {@link InboxStore.claim} (the same leases, the same atomicity), resolving with references
   * only: what a relay hands to a queue, without reading any body or headers.
   */
  claimRefs(input: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly leaseMs: number;
    /**
     * Which processing deliveries whose lease ran out are taken over (counting a failure).
     * `true` (the default): every one, as `claim` does. `false`: none, only pending deliveries are
     * leased. A list of leases: only those, and each only while it is still held under that lease
     * and still expired. A relay that asks its queue about lapsed handoffs first
     * ({@link InboxStore.lapsed}) passes the leases whose jobs the queue lost or finished, so a
     * lease that runs out, or is extended, after its question is never taken over unasked.
     */
    readonly takeOver?: boolean | readonly DeliveryLease[];
  }): Promise<LeasedRef[]>;
  /**
   * The `processing` deliveries of `providers` whose lease has run out (a claim that takes over
   * expired leases would take them and count a failure), in id order after `afterId`, at most `limit`; the lease each
   * was handed over with, so a relay can ask its queue about that job first. A plain read.
   */
  lapsed(input: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly afterId: number;
  }): Promise<LeasedRef[]>;
  /** Marks the leased delivery `done`. `false` when the lease was lost (nothing changed). */
  complete(lease: DeliveryLease): Promise<boolean>;
  /**
   * Optional: how to mark a leased delivery `done` inside a transaction of `store` (the receipts
   * store the handlers run through), when this inbox can write in that store's transactions: both
   * on the very same connection. Then the handler's writes, its receipt and the delivery's `done`
   * commit together, in one transaction and one commit, and no purge of receipts can fall between
   * them. `undefined` when it cannot (another database or connection): the worker marks the
   * delivery done after the commit, with {@link InboxStore.complete}. The function it returns is
   * fenced as `complete` is: `false` when the lease was lost (nothing changed).
   */
  completerFor?(
    store: object,
  ): ((lease: DeliveryLease, transaction: unknown) => Promise<boolean>) | undefined;
  /**
   * Optional: how to run several first deliveries' handlers in one transaction of `store`, when
   * this inbox can write in that store's transactions (as {@link InboxStore.completerFor}). The
   * worker then pays one transaction, one commit and a few statements for a whole batch instead of
   * a claim, a transaction and a commit per delivery. `undefined` when it cannot.
   */
  batcherFor?(store: object): DeliveryBatcher | undefined;
  /**
   * Optional: what, in a setup that runs, works against the inbox when `store`'s handlers run in
   * its transactions beside it (on SQLite, one connection for both: the endpoint's
   * acknowledgement waits for the handlers). The worker and the consumer report each as a
   * `warning` event when they are built.
   */
  cautionsFor?(store: object): readonly InboxCaution[];
  /**
   * Gives the leased delivery back as `pending`, due after `delayMs`. With an `error` it is a
   * failed attempt: the error is recorded and `failures` grows by one; with `null` it is a release
   * (the last error and `failures` stay). `false` when the lease was lost.
   */
  retry(
    lease: DeliveryLease,
    input: { readonly delayMs: number; readonly error: string | null },
  ): Promise<boolean>;
  /**
   * Keeps the leased deliveries leased for `leaseMs` from now (a queue bridge took them over):
   * resolves with how many leases were still held and are extended; lost ones are left alone.
   */
  extend(leases: readonly DeliveryLease[], input: { readonly leaseMs: number }): Promise<number>;
  /** Marks the leased delivery `dead` with `error` (a failure: `failures` grows by one). `false` when the lease was lost. */
  bury(lease: DeliveryLease, input: { readonly error: string }): Promise<boolean>;
  /**
   * Puts a finished delivery back for processing, deliberately, if it is still as `expected` (the
   * state the operator was shown): `dead` or `done` → `pending`, due now, `failures` 0 (a fresh
   * dead-letter budget), `finished_at` cleared; `attempts` keeps counting (it is the lease's
   * fencing token and must only grow) and the last error stays. One conditional write, a
   * compare-and-set on `expected.status` and `expected.attempts`: a delivery that moved since it
   * was read (retried by someone else, run again by a worker and now `done`, dead again on a later
   * attempt) is left as it is, and so is one with another status. Resolves `true` when it changed
   * the delivery, `false` when nothing changed. A `done` delivery's receipt is completed and would
   * only be replayed: forget it first (`ReceiptsAdmin.forget`) to have the handler run again.
   */
  redeliver(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'dead' | 'done'>,
  ): Promise<boolean>;
  /**
   * Makes a `pending` delivery that waits for its backoff due now, if it is still the pending
   * delivery `expected` names (the same `attempts`: not claimed since). One conditional write.
   * `true` when it did; `false` when nothing changed (not stored, not pending, claimed since, or
   * due already).
   */
  retryNow(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'pending'>,
  ): Promise<boolean>;
  /** The delivery stored under this key, or `null`. A plain read. */
  find(provider: string, externalId: string): Promise<StoredDelivery | null>;
  /**
   * Stored deliveries, oldest first, filtered by `status`, `provider` and received time
   * (`receivedFrom` inclusive, `receivedBefore` exclusive, to the millisecond) when given; at most
   * `limit` (`SqlInbox`: default 100, at most 10 000), after `afterId` when given (the next page:
   * a keyset, never an offset). Summaries: the body's size, never its bytes or the headers
   * ({@link InboxStore.find} reads one delivery whole).
   */
  list(input?: DeliveryListInput): Promise<DeliverySummary[]>;
  /**
   * Deletes `done` and `dead` deliveries (body included) that finished at least `olderThanMs`
   * ago (`0`: all of them), as receipts are purged; never a `pending` or `processing` one.
   * Returns how many were deleted.
   */
  purge(input: { readonly olderThanMs: number; readonly batchSize?: number }): Promise<number>;
  /**
   * Per provider: the unfinished deliveries, the stuck ones and the oldest's age; with a window, the
   * recently finished, dead and late ones. One bounded, index-served read ({@link BacklogInput}).
   */
  backlog(input: BacklogInput): Promise<InboxBacklog>;
}

/** What {@link InboxStore.list} filters and pages by; every field optional, the filters combine with AND. */
export interface DeliveryListInput {
  readonly status?: DeliveryStatus;
  readonly provider?: string;
  /**
   * Only deliveries received at or after this time ({@link Delivery.receivedAt}, the store's
   * clock, compared to the millisecond).
   */
  readonly receivedFrom?: Date;
  /** Only deliveries received before this time (exclusive: `receivedAt < receivedBefore`). */
  readonly receivedBefore?: Date;
  readonly limit?: number;
  /**
   * Lists the deliveries after this id (the last one of the page before), in id order whatever the
   * other filters: pass the same filters with it for the next page.
   */
  readonly afterId?: number;
}

/** A delivery as events name it. */
export interface DeliveryRef {
  readonly id: number;
  readonly provider: string;
  readonly externalId: string;
  readonly attempts: number;
}

/** A setup that runs but works against the inbox, and its fix ({@link InboxStore.cautionsFor}). */
export interface InboxCaution {
  /** Stable, for matching: `'SQLITE_SHARED_CONNECTION'`. */
  readonly code: string;
  /** What happens, and the fix. */
  readonly message: string;
}

/** What the inbox endpoint and the worker report without throwing: for logs and metrics. */
export type InboxEvent =
  /** The endpoint stored a delivery (`stored`) or recognised one it already had (`duplicate`). */
  | {
      readonly type: 'stored' | 'duplicate';
      readonly provider: string;
      readonly externalId: string;
    }
  /**
   * The endpoint's route set (`routes()`) takes no route for a verified delivery: acknowledged
   * with the stored answer, nothing stored (`ignored`); or refused with 422, nothing stored
   * (`refused`, under `unrouted: 'refuse'`). `event`: the name it carried.
   */
  | {
      readonly type: 'ignored' | 'refused';
      readonly provider: string;
      readonly event: string | undefined;
    }
  /** The endpoint answered a delivery with a key, or started or stopped refusing a provider ({@link EndpointEvent}). */
  | EndpointEvent
  /** The handler ran and committed, or the receipt showed it already had (`replayed: true`). */
  | { readonly type: 'processed'; readonly delivery: DeliveryRef; readonly replayed: boolean }
  /** The handler failed; the delivery is due again after `delayMs`. */
  | {
      readonly type: 'retry';
      readonly delivery: DeliveryRef;
      readonly delayMs: number;
      readonly error: string;
    }
  /** The handler failed for the last allowed time: the delivery is `dead`. */
  | { readonly type: 'dead'; readonly delivery: DeliveryRef; readonly error: string }
  /**
   * The delivery went back to `pending` without counting as a failure: another worker still held
   * its receipt (`in-progress`), the receipts store failed to claim or record it (`store-error`,
   * reported just before), the worker stopped before its handler finished (`shutdown`), or a claim
   * leased more retries than the worker had free lanes for (`surplus`: given back, due at once).
   */
  | {
      readonly type: 'released';
      readonly delivery: DeliveryRef;
      readonly reason: 'in-progress' | 'store-error' | 'shutdown' | 'surplus';
    }
  /** A relay handed these deliveries to a queue (their leases now last the handoff timeout). */
  | { readonly type: 'queued'; readonly deliveries: readonly DeliveryRef[] }
  /** A queue job's handler failed: the queue retries it by its own policy (`dead` follows its last attempt). */
  | { readonly type: 'failed'; readonly delivery: DeliveryRef; readonly error: string }
  /**
   * A queue job found nothing to do: the delivery was already finished (`finished`), is no longer
   * stored (`missing`, purged), or was handed over again under a newer lease (`superseded`).
   */
  | {
      readonly type: 'skipped';
      readonly delivery: DeliveryRef;
      readonly reason: 'finished' | 'missing' | 'superseded';
    }
  /** The worker's lease had expired and another worker took the delivery over: this result was not recorded on it. */
  | { readonly type: 'lease-lost'; readonly delivery: DeliveryRef }
  /** Reported once, when a worker or consumer is built: a setup that runs but works against the inbox ({@link InboxStore.cautionsFor}). */
  | ({ readonly type: 'warning' } & InboxCaution)
  /** A store call failed (the endpoint answered 503; the worker retries later), or a relay's send to its queue (`operation: 'send'`). */
  | {
      readonly type: 'store-error';
      readonly operation: string;
      readonly error: unknown;
      readonly delivery?: DeliveryRef;
    };

export type { BatchEntry, DeliveryBatcher } from './batcher-types';
export type { Delivery, NewDelivery } from './delivery';
