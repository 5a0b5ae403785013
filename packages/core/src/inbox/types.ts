/**
 * @module The inbox vocabulary: stored deliveries, their lifecycle and the events. The
 * `InboxStore` contract, as the roles that use it, is in inbox-store.ts.
 */
import type { EndpointEvent } from './figures';

/** Where a stored delivery is in its lifecycle. */
export const DeliveryStatus = {
  /** Stored and waiting (a first delivery, or one that failed, waiting for its backoff to pass). */
  PENDING: 'pending',
  /** Leased by a worker until its visibility timeout; another worker takes it over after that. */
  PROCESSING: 'processing',
  /** The handler ran and committed (or the receipt shows it already had): final. */
  DONE: 'done',
  /** Failed the worker's `maxFailures` times: kept for inspection, never leased again. */
  DEAD: 'dead',
} as const;
/** One of {@link DeliveryStatus}. */
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

/** What the inbox endpoint stores: the verified bytes and the allow-listed headers of one delivery. */
export interface NewDelivery {
  /** The receipts' provider (`'stripe'`). */
  readonly provider: string;
  /** The provider's id for the delivery (Stripe `event.id`); with `provider`, the unique key. */
  readonly externalId: string;
  /** Deliveries with the same provider and ordering key are processed one at a time, in receipt order; `null`: no order. */
  readonly orderingKey: string | null;
  /** The allow-listed request headers, lower-cased names (never `authorization` or cookies). */
  readonly headers: Readonly<Record<string, string>>;
  /** The request body, exactly the bytes the signature was verified on. */
  readonly body: Buffer;
}

/** A stored delivery as a worker gets it. `id` and `leases` together are the worker's lease. */
export interface Delivery extends NewDelivery, LeaseCount {
  /** The store's sequence number: increasing in receipt order. */
  readonly id: number;
  /**
   * Failures before this lease (since it was stored or last redelivered): what backoff and the
   * dead letter count. A handler that threw counts, and so does a lease that expired (its worker
   * died); a give-back (shutdown, another run holding the receipt) does not. Compared with the
   * worker's `maxFailures`.
   */
  readonly failures: number;
  /** When the endpoint stored it (the database clock). */
  readonly receivedAt: Date;
}

/** A stored delivery with its state, as `InboxStore.find` and `InboxStore.list` read it. */
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
 * A stored delivery as `InboxStore.list` reads it: its state, and its body's size instead of
 * its bytes and headers (a listing never holds the bodies it does not show).
 */
export interface DeliverySummary extends Omit<StoredDelivery, 'body' | 'headers'> {
  /** The body's size in bytes. */
  readonly bodyBytes: number;
}

/**
 * A lease as a relay holds it (`InboxStore.leaseRefs`, `InboxStore.lapsed`): the
 * reference a queue job carries and the failures so far, never the body or the headers.
 */
export interface LeasedRef extends DeliveryRef {
  /** As {@link Delivery.failures}: failures and lapsed leases before this lease. */
  readonly failures: number;
}

/**
 * How many times a delivery was leased, this lease included (1 on the first, 0 while never
 * leased): also the lease's fencing token, so it only ever grows (a redelivery does not reset
 * it). Not a receipt's `attempts` (its handler starts). The SQL column keeps its old name,
 * `attempts`.
 */
export interface LeaseCount {
  /** Leases so far, this one included. */
  readonly leases: number;
  /**
   * @deprecated Use `leases`, the same number under its old name: every delivery, reference and
   * event of this project carries both for one minor version.
   */
  readonly attempts: number;
}

/**
 * A lease count as a caller gives it: `leases`, or for one minor version its deprecated name
 * `attempts` alone (stores read it with `leasesOf`).
 */
export type GivenLeaseCount =
  | { readonly leases: number; readonly attempts?: number | undefined }
  | {
      /** @deprecated Use `leases`. */
      readonly attempts: number;
      readonly leases?: undefined;
    };

/**
 * The state an operator's repair expects a delivery to be in: the one they were shown. `leases`
 * only grows (every lease adds one) and no status comes back without a lease, so a delivery with
 * this status and these leases has not moved since it was read.
 */
export type ExpectedDelivery<S extends DeliveryStatus = DeliveryStatus> = {
  readonly status: S;
} & GivenLeaseCount;

/** The lease a worker, relay or consumer holds: the delivery's `id` and its `leases` when it was leased. */
export type DeliveryLease = { readonly id: number } & GivenLeaseCount;

/** What `InboxStore.list` filters and pages by; every field optional, the filters combine with AND. */
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

/** A delivery as events name it, under the lease it was leased with. */
export interface DeliveryRef extends LeaseCount {
  readonly id: number;
  readonly provider: string;
  readonly externalId: string;
}

/** A setup that runs but works against the inbox, and its fix (`InboxStore.cautionsFor`). */
export interface InboxCaution {
  /** Stable, for matching: `'SQLITE_SHARED_CONNECTION'`. */
  readonly code: string;
  /** What happens, and the fix. */
  readonly message: string;
}

/**
 * The `type` of the event a worker or a queue consumer emits when it gives a delivery back:
 * `'given-back'`. `'released'` is the name it had before 0.2, when "release" also named the
 * operator's action on a stuck receipt; a worker or consumer built with
 * `giveBackEvent: 'released'` (deprecated, for one minor version) still emits it, so that logs,
 * alerts and dashboards keyed on the old name keep working while they move.
 */
export type GiveBackEventName = 'given-back' | 'released';

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
   * The delivery was given back (`pending` again) without counting as a failure: another worker
   * still held its receipt (`in-progress`), the receipts store failed to claim or record it
   * (`store-error`, reported just before), the worker stopped before its handler finished
   * (`shutdown`), or a lease call leased more retries than the worker had free lanes for
   * (`surplus`: given back, due at once). `'released'` is its name before 0.2, emitted instead
   * only under the deprecated `giveBackEvent: 'released'` (see {@link GiveBackEventName}).
   */
  | {
      readonly type: GiveBackEventName;
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
  /** Reported once, when a worker or consumer is built: a setup that runs but works against the inbox (`InboxStore.cautionsFor`). */
  | ({ readonly type: 'warning' } & InboxCaution)
  /** A store call failed (the endpoint answered 503; the worker retries later), or a relay's send to its queue (`operation: 'send'`). */
  | {
      readonly type: 'store-error';
      readonly operation: string;
      readonly error: unknown;
      readonly delivery?: DeliveryRef;
    };
