/**
 * @module The `InboxStore` contract, as the roles that use it: the endpoint stores deliveries, the
 * worker leases them whole, the relay leases references for a queue, a queue consumer reads the
 * delivery a job names, the admin page reads, the operator repairs. One store implements every
 * role (`SqlInbox`, `InMemoryInbox`); each user is typed against the role it uses, so a store for
 * one role (a read-only view, a test double) implements only that role. The link to the receipts
 * store ({@link InboxReceiptsLink}) says, in its type, whether the inbox writes in the receipts'
 * transactions.
 */
import type { Store } from '../types';
import type { BacklogInput, InboxBacklog } from './figures';
import { withLeases } from './lease-count';
import type {
  Delivery,
  DeliveryLease,
  DeliveryListInput,
  DeliverySummary,
  ExpectedDelivery,
  InboxCaution,
  LeasedRef,
  NewDelivery,
  StoredDelivery,
} from './types';

/** The endpoint's role: storing what arrives. */
export interface InboxEndpointStore {
  /**
   * Stores `delivery` as `pending`, due now, unless one with the same provider and external id is
   * stored: resolves `true` when this call stored it, `false` for a duplicate (nothing changed).
   * Atomic: of concurrent calls with one key, exactly one resolves `true`.
   */
  enqueue(delivery: NewDelivery): Promise<boolean>;
}

/**
 * What every lease holder (the worker, the relay, a queue consumer) writes: a lease kept or
 * ended. Each is one conditional write fenced by the lease (`status = 'processing' AND leases =
 * lease.leases`; `SqlInbox`'s column is still named `attempts`), so a holder whose lease expired
 * and was taken over cannot change the new owner's delivery.
 */
export interface InboxLeaseStore {
  /** Marks the leased delivery `done`. `false` when the lease was lost (nothing changed). */
  complete(lease: DeliveryLease): Promise<boolean>;
  /**
   * A failure: the leased delivery goes back to `pending`, due after `delayMs`, its `error`
   * recorded and `failures` grown by one. `false` when the lease was lost.
   *
   * An `error` of `null` gives it back without a failure counted, as {@link giveBack} does (the
   * form before `giveBack` existed; a store maps it to `giveBack`).
   */
  retry(
    lease: DeliveryLease,
    input: {
      readonly delayMs: number;
      /** `null` is deprecated: use {@link InboxLeaseStore.giveBack}. */
      readonly error: string | null;
    },
  ): Promise<boolean>;
  /**
   * Gives the leased delivery back without a failure counted: `pending` again, due after
   * `delayMs`, its last error and `failures` as they were (a stop, another run holding its
   * receipt, a receipts-store failure, a claim that leased more than there were lanes for).
   * `false` when the lease was lost. Optional for one minor version: an inbox store written
   * before it is given deliveries back through its `retry(lease, { delayMs, error: null })`
   * (the worker, the relay and the queue consumers do it); every store of this project has it.
   */
  giveBack?(lease: DeliveryLease, input: { readonly delayMs: number }): Promise<boolean>;
  /**
   * Keeps the leased deliveries leased for `leaseMs` from now (a worker renewing what it runs, a
   * queue bridge that took them over): resolves with how many leases were still held and are
   * extended; lost ones are left alone.
   */
  extend(leases: readonly DeliveryLease[], input: { readonly leaseMs: number }): Promise<number>;
  /** Marks the leased delivery `dead` with `error` (a failure: `failures` grows by one). `false` when the lease was lost. */
  bury(lease: DeliveryLease, input: { readonly error: string }): Promise<boolean>;
}

/**
 * An inbox's link to the receipts store the handlers run through. An inbox built on the very
 * connection of a receipts store, and told so (`new SqlInbox(db, { receipts: store })`), names
 * that store in `receipts` and marks deliveries `done` inside its transactions (`completeIn`):
 * the handler's writes, its receipt and its delivery's `done` then commit together, in one
 * transaction and one commit, and the worker can run first deliveries in groups. An inbox without
 * the link (another database, another connection) is marked done after each receipt's commit.
 *
 * @typeParam Tx the receipts store's transaction handle.
 */
export interface InboxReceiptsLink<Tx = unknown> {
  /**
   * The receipts store whose transactions this inbox writes in; `undefined` (or absent) without a
   * link. Compared by identity with the worker's store; `Store<unknown>` keeps an inbox typed as
   * the whole {@link InboxStore} usable with a store of any transaction type.
   */
  readonly receipts?: Store<Tx> | Store<unknown> | undefined;
  /**
   * Marks the leased deliveries `done` inside `transaction`, a transaction of {@link receipts},
   * fenced as {@link InboxLeaseStore.complete} is: per lease, in order, `true` when it was done
   * now, `false` when its lease was lost (nothing changed for it). Commits or rolls back with the
   * transaction.
   */
  completeIn?(leases: readonly DeliveryLease[], transaction: Tx): Promise<boolean[]>;
  /**
   * Optional: what, in a setup that runs, works against the inbox when `store`'s handlers run in
   * its transactions beside it (on SQLite, one connection for both: the endpoint's
   * acknowledgement waits for the handlers). The worker and the consumer report each as a
   * `warning` event when they are built.
   */
  cautionsFor?(store: object): readonly InboxCaution[];
  /**
   * Optional: how to mark a leased delivery `done` inside a transaction of `store`, found by the
   * inbox itself; `undefined` when it cannot write in that store's transactions.
   * @deprecated Build the inbox with its receipts store (`new SqlInbox(db, { receipts: store })`):
   * the link is then in its type ({@link receipts}, {@link completeIn}).
   */
  completerFor?(
    store: object,
  ): ((lease: DeliveryLease, transaction: unknown) => Promise<boolean>) | undefined;
  /**
   * Optional: a runner of several first deliveries in one transaction of `store`.
   * @deprecated The worker no longer asks for it: its groups run through the guard, whose store
   * records their receipts by the Store contract (`Store.known`, `Store.recordFirst`), and mark
   * the deliveries done with {@link completeIn}.
   */
  batcherFor?(store: object): DeliveryBatcher | undefined;
}

/** What {@link InboxWorkerStore.lease} takes. */
export interface LeaseInput {
  readonly providers: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
}

/** What {@link InboxRelayStore.leaseRefs} takes. */
export interface LeaseRefsInput extends LeaseInput {
  /**
   * Which processing deliveries whose lease ran out are taken over (counting a failure).
   * `true` (the default): every one, as `lease` does. `false`: none, only pending deliveries are
   * leased. A list of leases: only those, and each only while it is still held under that lease
   * and still expired. A relay that asks its queue about lapsed handoffs first
   * ({@link InboxRelayStore.lapsed}) passes the leases whose jobs the queue lost or finished, so a
   * lease that runs out, or is extended, after its question is never taken over unasked.
   */
  readonly takeOver?: boolean | readonly DeliveryLease[];
}

/** The worker's role: leasing whole deliveries, keeping and ending the leases, beside its receipts. */
export interface InboxWorkerStore<Tx = unknown> extends InboxLeaseStore, InboxReceiptsLink<Tx> {
  /**
   * Leases up to `limit` due deliveries of `providers` (pending and due, or processing with an
   * expired lease), oldest first: each becomes `processing`, `leases + 1`, available again only
   * after `leaseMs`. Of deliveries sharing a provider and ordering key, only the oldest unfinished
   * one is ever leased. Concurrent calls never lease one delivery twice. Optional for one minor
   * version: the worker leases through `claim`, its name before, on an inbox store written before
   * it; every store of this project has it.
   */
  lease?(input: LeaseInput): Promise<Delivery[]>;
  /** @deprecated Use {@link InboxWorkerStore.lease}, the same call ("claim" is a receipt's word). */
  claim?(input: LeaseInput): Promise<Delivery[]>;
}

/** The relay's role: leasing references for a queue, and asking about handoffs that lapsed. */
export interface InboxRelayStore extends InboxLeaseStore {
  /**
   * As {@link InboxWorkerStore.lease} (the same leases, the same atomicity), resolving with
   * references only: what a relay hands to a queue, without reading any body or headers.
   * Optional for one minor version, as `lease` is: the relay calls `claimRefs` on a store that has
   * only that.
   */
  leaseRefs?(input: LeaseRefsInput): Promise<LeasedRef[]>;
  /** @deprecated Use {@link InboxRelayStore.leaseRefs}, the same call. */
  claimRefs?(input: LeaseRefsInput): Promise<LeasedRef[]>;
  /**
   * The `processing` deliveries of `providers` whose lease has run out (a lease call that takes over
   * expired leases would take them and count a failure), in id order after `afterId`, at most `limit`; the lease each
   * was handed over with, so a relay can ask its queue about that job first. A plain read.
   */
  lapsed(input: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly afterId: number;
  }): Promise<LeasedRef[]>;
}

/** The reads of the admin page and of the operator's tools. */
export interface InboxReader {
  /** The delivery stored under this key, or `null`. A plain read. */
  find(provider: string, externalId: string): Promise<StoredDelivery | null>;
  /**
   * Stored deliveries, oldest first, filtered by `status`, `provider` and received time
   * (`receivedFrom` inclusive, `receivedBefore` exclusive, to the millisecond) when given; at most
   * `limit` (`SqlInbox`: default 100, at most 10 000), after `afterId` when given (the next page:
   * a keyset, never an offset). Summaries: the body's size, never its bytes or the headers
   * ({@link InboxReader.find} reads one delivery whole).
   */
  list(input?: DeliveryListInput): Promise<DeliverySummary[]>;
  /**
   * Per provider: the unfinished deliveries, the stuck ones and the oldest's age; with a window, the
   * recently finished, dead and late ones. One bounded, index-served read ({@link BacklogInput}).
   */
  backlog(input: BacklogInput): Promise<InboxBacklog>;
}

/** A queue consumer's role: reading the delivery a job names, and ending its lease. */
export interface InboxConsumerStore<Tx = unknown>
  extends InboxLeaseStore,
    InboxReceiptsLink<Tx>,
    Pick<InboxReader, 'find'> {}

/** The operator's role: the repairs of the operations tools (the CLI, the dashboard), over the reads. */
export interface InboxOperatorStore extends InboxReader {
  /**
   * Puts a finished delivery back for processing, deliberately, if it is still as `expected` (the
   * state the operator was shown): `dead` or `done` → `pending`, due now, `failures` 0 (a fresh
   * dead-letter budget), `finished_at` cleared; `leases` keeps counting (it is the lease's
   * fencing token and must only grow) and the last error stays. One conditional write, a
   * compare-and-set on `expected.status` and `expected.leases`: a delivery that moved since it
   * was read (retried by someone else, run again by a worker and now `done`, dead again on a later
   * attempt) is left as it is, and so is one with another status. Resolves `true` when it changed
   * the delivery, `false` when nothing changed. A `done` delivery's receipt is completed and would
   * only be replayed: forget it first (`forgetReceipt`) to have the handler run again.
   */
  redeliver(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'dead' | 'done'>,
  ): Promise<boolean>;
  /**
   * Makes a `pending` delivery that waits for its backoff due now, if it is still the pending
   * delivery `expected` names (the same `leases`: not leased since). One conditional write.
   * `true` when it did; `false` when nothing changed (not stored, not pending, leased since, or
   * due already).
   */
  retryNow(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'pending'>,
  ): Promise<boolean>;
  /**
   * Deletes `done` and `dead` deliveries (body included) that finished at least `olderThanMs`
   * ago (`0`: all of them), as receipts are purged; never a `pending` or `processing` one. At
   * most `chunkSize` rows (a chunk) per statement. Returns how many were deleted.
   */
  purge(input: {
    readonly olderThanMs: number;
    /** Rows one statement deletes at most. Defaults to 1000. */
    readonly chunkSize?: number;
    /** @deprecated Use `chunkSize`. */
    readonly batchSize?: number;
  }): Promise<number>;
}

/**
 * Durable storage of inbox deliveries: every role above, one store. Each method is atomic; every
 * time comes from the store's own clock. `SqlInbox` (`@webhook-idempotency/sql`) and
 * `InMemoryInbox` implement it, and `runInboxStoreConformance` checks a store against it.
 */
export interface InboxStore
  extends InboxEndpointStore,
    InboxWorkerStore,
    InboxRelayStore,
    InboxConsumerStore,
    InboxOperatorStore {
  /** {@link InboxWorkerStore.lease}: required of a whole store (the roles take `claim` for one minor version). */
  lease(input: LeaseInput): Promise<Delivery[]>;
  /** {@link InboxRelayStore.leaseRefs}: required of a whole store. */
  leaseRefs(input: LeaseRefsInput): Promise<LeasedRef[]>;
}

/**
 * A delivery a group ran, and what to record for it.
 * @deprecated Only {@link DeliveryBatcher} takes it; a group's receipts are recorded by the
 * guard (`Store.recordFirst`).
 */
export interface BatchEntry {
  /** The delivery, under the lease it was leased with. */
  readonly delivery: Delivery;
  /** The handler's result as the guard's codec encoded it: the receipt's stored response. */
  readonly response: string;
  /**
   * How long the delivery's own handler ran, in milliseconds (not the group's): the receipt records
   * it as its handler time (`finished_at − claimed_at`), as a run on its own would.
   */
  readonly handlerMs: number;
}

/**
 * Runs the handlers of several leased deliveries in one transaction of the receipts store; what
 * `run` writes commits together with the handlers' writes, or nothing does.
 * @deprecated The worker's groups run through the guard over the Store contract, and the inbox
 * marks their deliveries done with {@link InboxReceiptsLink.completeIn}; no store writes a
 * group's receipts any other way.
 */
export interface DeliveryBatcher {
  /**
   * One transaction: reads which of `deliveries` already have a receipt (their ids are in the
   * `known` set `work` gets; `work` leaves them out), runs `work` with the open transaction, then
   * writes a `completed` receipt (attempts 1, its entry's `handlerMs` as its handler time) for
   * each entry `work` resolved with, marks its delivery `done` under its lease, and commits.
   * Resolves with, per entry in order, `true` (done) or `false` (the lease was lost). Rejects,
   * rolled back, when `work` rejects, when a receipt for one of the entries was written meanwhile
   * by another run, or when the store fails.
   */
  run(
    deliveries: readonly Delivery[],
    work: (transaction: unknown, known: ReadonlySet<number>) => Promise<readonly BatchEntry[]>,
    options: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
  ): Promise<boolean[]>;
}

/** What a lease call resolves with, each with its lease count under both names ({@link withLeases}). */
async function withLeaseCounts<T extends Delivery | LeasedRef>(leased: Promise<T[]>): Promise<T[]> {
  return (await leased).map(withLeases);
}

/**
 * Leases due deliveries through the store's `lease`, or `claim` on an inbox store written before
 * the rename; each with its lease count under both names ({@link withLeases}).
 */
export async function leaseDeliveries(
  inbox: Pick<InboxWorkerStore, 'lease' | 'claim'>,
  input: LeaseInput,
): Promise<Delivery[]> {
  return withLeaseCounts(inbox.lease ? inbox.lease(input) : inbox.claim!(input));
}

/** As {@link leaseDeliveries}, for references: the store's `leaseRefs`, or its `claimRefs`. */
export async function leaseDeliveryRefs(
  inbox: Pick<InboxRelayStore, 'leaseRefs' | 'claimRefs'>,
  input: LeaseRefsInput,
): Promise<LeasedRef[]> {
  return withLeaseCounts(inbox.leaseRefs ? inbox.leaseRefs(input) : inbox.claimRefs!(input));
}

/**
 * Gives `lease` back without a failure counted: the store's `giveBack`, or for an inbox store
 * written before it existed, the same through `retry(lease, { delayMs, error: null })`.
 */
export function giveBackLease(
  inbox: Pick<InboxLeaseStore, 'giveBack' | 'retry'>,
  lease: DeliveryLease,
  input: { readonly delayMs: number },
): Promise<boolean> {
  return inbox.giveBack
    ? inbox.giveBack(lease, input)
    : inbox.retry(lease, { delayMs: input.delayMs, error: null });
}
