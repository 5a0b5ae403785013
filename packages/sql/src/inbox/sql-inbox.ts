/**
 * @module SqlInbox: the `InboxStore` contract over PostgreSQL, MySQL/MariaDB or SQLite, every role
 * in one store; and, when it is built with its receipts store (`{ receipts }`), the link to that
 * store's transactions (`completeIn`, and `enqueueIn`, which the outbox records with).
 */
import type * as contract from '@webhook-idempotency/core/inbox';
import type { Store } from '@webhook-idempotency/core';
import type { OutboxRecordStore } from '@webhook-idempotency/core/outbox';
import type { DeliveryBatcher } from '@webhook-idempotency/core/adapter';
import { leasesOf, resolveListInput, resolvePurgeInput } from '@webhook-idempotency/core/adapter';
import { deleteInChunks } from '../connections/chunked-delete';
import { executorFor } from '../connections/detect';
import type { Executor } from '../connections/executor';
import {
  CONNECTION,
  type ConnectionIdentity,
  connectionIdentity,
  connectionOf,
  type OnConnection,
  sameConnection,
  sharedWriter,
} from '../connections/identity';
import type { SqlConnection, SqlDialect } from '../connections/types';
import { dialects, tableExists, type DialectSpec } from '../dialects';
import { type LeaseContext, type LeaseInput, leaseRowsOf } from './lease';
import { completeLeases, groupRunner } from './complete';
import { checkDeliveryKey, enqueueInTransaction } from './enqueue-in';
import { type GroupCommit, groupCommitFor, insertAll, insertOne } from './group-commit';
import type { InboxWriter } from './group-commit';
import { buryLease, extendLeases, pendingAgain } from './lease-ends';
import { buildInboxQueries, type InboxQueries, storableRange } from './queries';
import { toClaimed, toHeldRef, toLeasedRef, toStored, toSummary } from './rows';
import { resolveInboxTable } from './schema';
import { leaseOptionsOf, receiptsOn } from './setup';
import type { SqlInboxOptions } from './types';
import { type BacklogInput, type InboxBacklog, readInboxBacklog } from './backlog';

/** What `lapsed` takes. */
type LapsedInput = Parameters<contract.InboxStore['lapsed']>[0];
/**
 * Inbox deliveries in the application's own database (`webhook_inbox`; create it with
 * `InboxSchema.createTable(db)` or a migration from `InboxSchema.statements`). `db` is any
 * connection `SqlStore` accepts — a knex instance, a `pg` Pool, a `mysql2` pool or a
 * `better-sqlite3` Database — and is never opened or closed by the inbox. Every time is the
 * database's clock.
 *
 * Built with the receipts store the worker's handlers run through (`{ receipts: store }`, a
 * `SqlStore` on the same `db`), it writes in that store's transactions: a handler's writes, its
 * receipt and its delivery's `done` commit together, and the worker runs first deliveries in
 * groups. The link is in its type: `SqlInbox<Tx>` with `receipts`, `completeIn` and `enqueueIn`.
 *
 * Claims lock the rows they lease with `FOR UPDATE SKIP LOCKED` on PostgreSQL and MySQL 8 /
 * MariaDB 10.6+ (see {@link SqlInboxOptions.skipLocked} for older servers); on SQLite a claim
 * holds the database's single write lock (`BEGIN IMMEDIATE`) for its two statements.
 *
 * @example
 * const store = new SqlStore(pool);
 * const deliveries = new SqlInbox(pool, { receipts: store });
 * await InboxSchema.createTable(pool);
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }), inbox({ inbox: deliveries, preset }));
 * createInboxWorker({ inbox: deliveries, store, handlers }).start();
 * @typeParam Tx the transaction handle of its receipts store (`never` without one).
 * @see docs/inbox.md
 */
export class SqlInbox<Tx = never>
  implements
    contract.InboxStore,
    contract.InboxReceiptsLink<Tx>,
    OutboxRecordStore<Tx>,
    OnConnection
{
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The deliveries table name. */
  readonly table: string;
  /** The receipts store this inbox writes in the transactions of, when it was built with one. */
  readonly receipts: Store<Tx> | undefined;
  /** @internal The connection its statements run on. */
  readonly [CONNECTION]: ConnectionIdentity;
  private readonly executor: Executor;
  private readonly spec: DialectSpec;
  private readonly sql: InboxQueries;
  /** What a claim runs on. */
  private readonly leasing: LeaseContext;
  /** What the lease writes and `enqueueIn` run on. */
  private readonly writer: InboxWriter;
  /** The endpoint's group commit: concurrent `enqueue` calls share a transaction. */
  private readonly groupCommit: GroupCommit<contract.NewDelivery, boolean> | undefined;

  /**
   * @throws {ConfigError} naming `db` when it is not a supported connection.
   * @throws {ConfigError} naming `receipts` when it is not a SQL store on this very connection.
   * @throws {ConfigError} naming an invalid option.
   */
  constructor(db: SqlConnection, options: SqlInboxOptions<Tx> = {}) {
    const { skipLocked, leaseTimeoutMs } = leaseOptionsOf(options as SqlInboxOptions<unknown>);
    this.table = resolveInboxTable(options.table);
    this.executor = executorFor(db, options);
    this.dialect = this.executor.dialect;
    this[CONNECTION] = connectionIdentity(db, this.dialect);
    this.receipts = receiptsOn(this[CONNECTION], options.receipts);
    this.spec = dialects[this.dialect];
    this.sql = buildInboxQueries(this.spec, this.table, skipLocked);
    const { executor, spec, sql, table } = this;
    this.leasing = { executor, spec, sql, table, leaseTimeoutMs };
    const writer = { executor, spec, sql };
    this.writer = writer;
    this.groupCommit = groupCommitFor(
      spec,
      options.groupCommit,
      (deliveries) => insertAll(writer, deliveries),
      (delivery) => insertOne(writer, delivery),
    );
  }

  /**
   * Stores a new delivery: one `INSERT` that the unique `(provider, external_id)` index
   * arbitrates, resolving `false` for a delivery already stored. With group commit (the default),
   * concurrent calls share a transaction; each resolves once its own row has committed.
   * The key columns are checked first, as a receipt key is (no NUL, no unpaired surrogate, at
   * most 160 characters): a value no dialect can store is refused with `InvalidRequestKey`
   * naming the field, never sent to the database to fail there as a driver error.
   */
  async enqueue(delivery: contract.NewDelivery): Promise<boolean> {
    checkDeliveryKey(delivery);
    return this.groupCommit
      ? this.groupCommit.submit(delivery)
      : insertOne({ executor: this.executor, spec: this.spec, sql: this.sql }, delivery);
  }

  /**
   * Stores a new delivery inside `transaction`, a transaction of {@link receipts} (the outbox's
   * messages, recorded in a handler's run): one `INSERT` that the unique `(provider, external_id)`
   * index arbitrates without ending the transaction, never group-committed; `false` when that key
   * is stored already (nothing changed). Key columns are checked as {@link SqlInbox.enqueue} does.
   * @throws {ConfigError} naming `receipts` on an inbox built without its receipts store.
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING` without a transaction.
   */
  enqueueIn(delivery: contract.NewDelivery, transaction: Tx): Promise<boolean> {
    return enqueueInTransaction(this.writer, this.receipts, delivery, transaction);
  }

  /**
   * One short transaction: pick and lock the due rows, then lease them; bounded by
   * `leaseTimeoutMs`. @throws {ConfigError} for a `limit` above 1000.
   */
  async lease(input: LeaseInput): Promise<contract.Delivery[]> {
    return (await leaseRowsOf(this.leasing, input, false)).map(toClaimed);
  }

  /** As {@link SqlInbox.lease}, reading only the references and counters: no body, no headers. */
  async leaseRefs(input: LeaseInput): Promise<contract.LeasedRef[]> {
    return (await leaseRowsOf(this.leasing, input, true)).map(toLeasedRef);
  }

  /** @deprecated Use {@link SqlInbox.lease}. */
  claim(input: LeaseInput): Promise<contract.Delivery[]> {
    return this.lease(input);
  }

  /** @deprecated Use {@link SqlInbox.leaseRefs}. */
  claimRefs(input: LeaseInput): Promise<contract.LeasedRef[]> {
    return this.leaseRefs(input);
  }

  /** One read of the index over unfinished deliveries: processing ones whose lease ran out. */
  async lapsed({ providers, limit, afterId }: LapsedInput): Promise<contract.LeasedRef[]> {
    if (providers.length === 0 || limit < 1) return [];
    const { rows } = await this.executor.query(this.sql.lapsed(providers.length), [
      ...providers,
      afterId,
      limit,
    ]);
    return rows.map(toHeldRef);
  }

  async complete(lease: contract.DeliveryLease): Promise<boolean> {
    return (await completeLeases(this.executor, this.sql, [lease], undefined))[0]!;
  }

  /**
   * Marks the leased deliveries done inside `transaction`, a transaction of {@link receipts} (the
   * handlers' writes, their receipts and the deliveries' `done` then commit together): one
   * statement, fenced by each lease. Per lease, `true` when it was done now, `false` when its lease
   * was lost.
   */
  completeIn(leases: readonly contract.DeliveryLease[], transaction: Tx): Promise<boolean[]> {
    return completeLeases(this.executor, this.sql, leases, transaction);
  }

  /**
   * For a SQL store on this inbox's very connection: marks a leased delivery done inside that
   * store's transaction. `undefined` for any other store: a store on another database or
   * connection (the SQLite setup with the deliveries in a file of their own) cannot run this
   * inbox's statements in its transactions.
   * @deprecated Build the inbox with the store (`new SqlInbox(db, { receipts: store })`): the link
   * is then in its type (`receipts`, `completeIn`), not found at run time.
   */
  completerFor(
    store: object,
  ): ((lease: contract.DeliveryLease, transaction: unknown) => Promise<boolean>) | undefined {
    if (!sameConnection(this[CONNECTION], connectionOf(store))) return undefined;
    return async (lease, transaction) =>
      (await completeLeases(this.executor, this.sql, [lease], transaction))[0]!;
  }

  /**
   * For a SQL store on this inbox's very connection: a runner of several first deliveries in one
   * of its transactions, over the Store contract's group operations. `undefined` for any other.
   * @deprecated The worker's groups run through the guard (`IdempotencyGuard.group`), which
   * records their receipts by the Store contract; build the inbox with its store (`{ receipts }`).
   */
  batcherFor(store: object): DeliveryBatcher | undefined {
    const receipts = store as Store<unknown>;
    if (
      !sameConnection(this[CONNECTION], connectionOf(store)) ||
      typeof receipts.withTransaction !== 'function'
    )
      return undefined;
    return groupRunner(receipts, (leases, transaction) =>
      completeLeases(this.executor, this.sql, leases, transaction),
    );
  }

  /** On SQLite, a receipts store on this very connection: the endpoint waits for its handlers. */
  cautionsFor(store: object): readonly contract.InboxCaution[] {
    return sharedWriter(this[CONNECTION], connectionOf(store));
  }

  /** One `UPDATE` fenced by the lease; `error: null` is mapped to {@link SqlInbox.giveBack}. */
  async retry(
    lease: contract.DeliveryLease,
    { delayMs, error }: { readonly delayMs: number; readonly error: string | null },
  ): Promise<boolean> {
    if (error === null) return this.giveBack(lease, { delayMs });
    return pendingAgain(this.writer, lease, delayMs, error);
  }

  /** One `UPDATE` fenced by the lease: `pending` again, `failures` and the last error kept. */
  giveBack(
    lease: contract.DeliveryLease,
    { delayMs }: { readonly delayMs: number },
  ): Promise<boolean> {
    return pendingAgain(this.writer, lease, delayMs, null);
  }

  extend(
    leases: readonly contract.DeliveryLease[],
    input: { readonly leaseMs: number },
  ): Promise<number> {
    return extendLeases(this.writer, leases, input.leaseMs);
  }

  bury(lease: contract.DeliveryLease, { error }: { readonly error: string }): Promise<boolean> {
    return buryLease(this.writer, lease, error);
  }

  /** One conditional `UPDATE`, a compare-and-set on the status and leases the operator saw. */
  async redeliver(
    provider: string,
    externalId: string,
    expected: contract.ExpectedDelivery<'dead' | 'done'>,
  ): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.redeliver, [
      provider,
      externalId,
      expected.status,
      leasesOf(expected),
    ]);
    return affected === 1;
  }

  /** One conditional `UPDATE`: only the pending delivery seen, still waiting, changes. */
  async retryNow(
    provider: string,
    externalId: string,
    expected: contract.ExpectedDelivery<'pending'>,
  ): Promise<boolean> {
    if (expected.status !== 'pending') return false;
    const { affected } = await this.executor.query(this.sql.retryNow, [
      provider,
      externalId,
      leasesOf(expected),
    ]);
    return affected === 1;
  }

  /**
   * True when the deliveries table exists; false when the database reports it missing (for
   * operations tools; not part of `InboxStore`).
   */
  tableExists(): Promise<boolean> {
    return tableExists(this.executor, this.spec, this.sql.exists);
  }

  async find(provider: string, externalId: string): Promise<contract.StoredDelivery | null> {
    const { rows } = await this.executor.query(this.sql.find, [provider, externalId]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  /**
   * Summaries, oldest first: the body's size (`bodyBytes`) but never its bytes or the headers, so
   * a listing holds no more than its rows' metadata. `limit` defaults to 100 and may be at most
   * 10 000; `afterId` (default 0) lists the deliveries after that id, for the next page;
   * `receivedFrom` (inclusive) and `receivedBefore` (exclusive) are compared with `received_at`
   * as stored, to the millisecond. Pages are still read in id order from `afterId` through the
   * primary key: ids follow arrival, so a range's deliveries sit together in id order, and a page
   * inside the range reads about `limit` rows (the first also walks past the older deliveries
   * before the range, the last past the newer ones after it).
   * @throws {ConfigError} for an unknown `status`, a `limit` that is not a whole number from 1 to
   * 10 000, an `afterId` that is not a whole number, or a time bound that is not a valid Date.
   */
  async list(input: contract.DeliveryListInput = {}): Promise<contract.DeliverySummary[]> {
    const { status, provider, limit, afterId, ...received } = resolveListInput(input);
    const { from, before } = storableRange(received.receivedFromMs, received.receivedBeforeMs);
    const filters = [status, provider, from, before];
    const statement = this.sql.list({
      status: status !== undefined,
      provider: provider !== undefined,
      receivedFrom: from !== undefined,
      receivedBefore: before !== undefined,
    });
    const params = [afterId, ...filters.filter((value) => value !== undefined), limit];
    const { rows } = await this.executor.query(statement, params);
    return rows.map(toSummary);
  }

  /**
   * Deletes `done` and `dead` deliveries finished more than `olderThanMs` ago, in chunks of
   * `chunkSize` rows (default 1000); never a pending or processing one.
   * @example
   * await inbox.purge({ olderThanMs: 30 * DAY });
   */
  async purge(input: Parameters<contract.InboxStore['purge']>[0]): Promise<number> {
    const { olderThanMs, chunkSize } = resolvePurgeInput(input);
    return deleteInChunks(
      (sql, params) => this.executor.query(sql, params),
      this.sql.purgeChunk,
      [olderThanMs],
      chunkSize,
    );
  }

  /** Two grouped reads from the indexes, bounded in rows and time (backlog.ts). */
  backlog = (input: BacklogInput): Promise<InboxBacklog> =>
    readInboxBacklog(this.executor, this.spec, this.table, input);
}
