/** @module SqlInbox: the `InboxStore` contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §13). */
import { ConfigError } from '@webhook-idempotency/core';
import type {
  Delivery,
  DeliveryLease,
  DeliveryListInput,
  DeliverySummary,
  ExpectedDelivery,
  InboxStore,
  LeasedRef,
  NewDelivery,
  StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import type { DeliveryBatcher } from '@webhook-idempotency/core/adapter';
import {
  checkKeyPart,
  resolveListInput,
  resolvePurgeInput,
} from '@webhook-idempotency/core/adapter';
import { deleteInBatches } from './batch-delete';
import { type BacklogInput, type InboxBacklog, readInboxBacklog } from './inbox-backlog';
import { executorFor, rememberConnection, sameConnection, sharedSqlite } from './connection';
import { type GroupCommit, groupCommitFor } from './group-commit';
import { dialects, isDuplicateKey, isMissingTable, type DialectSpec } from './dialects';
import type { Executor } from './executor';
import { type InboxDialectSpec, inboxDialects } from './inbox-dialects';
import { buildInboxQueries, type InboxQueries, storableRange } from './inbox-queries';
import { resolveInboxTable } from './inbox-schema';
import type { SqlInboxOptions } from './inbox-types';
import { batcherOver, completeAllIn } from './inbox-batcher';
import { type ClaimContext, type ClaimInput, claimRowsOf } from './inbox-claim';
import { toClaimed, toHeldRef, toLeasedRef, toStored, toSummary } from './inbox-rows';
import { storableText } from './rows';
import { SqlStore } from './sql-store';
import type { SqlConnection, SqlDialect } from './types';

/** What `lapsed` takes. */
type LapsedInput = Parameters<InboxStore['lapsed']>[0];
/** A claim's default bound on lock waits and its run (`claimTimeoutMs`). */
const DEFAULT_CLAIM_TIMEOUT_MS = 5000;

/**
 * Inbox deliveries in the application's own database (`webhook_inbox`; create it with
 * `InboxSchema.createTable(db)` or a migration from `InboxSchema.statements`). `db` is any
 * connection `SqlStore` accepts — a knex instance, a `pg` Pool, a `mysql2` pool or a
 * `better-sqlite3` Database — and is never opened or closed by the inbox. Every time is the
 * database's clock.
 *
 * Claims lock the rows they lease with `FOR UPDATE SKIP LOCKED` on PostgreSQL and MySQL 8 /
 * MariaDB 10.6+ (see {@link SqlInboxOptions.skipLocked} for older servers); on SQLite a claim
 * holds the database's single write lock (`BEGIN IMMEDIATE`) for its two statements.
 *
 * @example
 * const deliveries = new SqlInbox(pool);
 * await InboxSchema.createTable(pool);
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }), inbox({ inbox: deliveries, preset }));
 * @see docs/inbox.md
 */
export class SqlInbox implements InboxStore {
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The deliveries table name. */
  readonly table: string;
  private readonly executor: Executor;
  private readonly spec: DialectSpec;
  private readonly sql: InboxQueries;
  private readonly inboxSpec: InboxDialectSpec;
  /** What a claim runs on. */
  private readonly claiming: ClaimContext;
  private readonly batcher: GroupCommit<NewDelivery, boolean> | undefined;

  /**
   * @throws {ConfigError} naming `db` when it is not a supported connection.
   * @throws {ConfigError} naming an invalid option.
   */
  constructor(db: SqlConnection, options: SqlInboxOptions = {}) {
    const { skipLocked = true, claimTimeoutMs = DEFAULT_CLAIM_TIMEOUT_MS } = options;
    this.table = resolveInboxTable(options.table);
    if (typeof skipLocked !== 'boolean') throw new ConfigError('skipLocked', 'must be a boolean');
    if (
      typeof claimTimeoutMs !== 'number' ||
      !Number.isFinite(claimTimeoutMs) ||
      claimTimeoutMs < 1
    )
      throw new ConfigError(
        'claimTimeoutMs',
        `must be a number of milliseconds >= 1, got ${String(claimTimeoutMs)}`,
      );
    this.executor = executorFor(db, options);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.inboxSpec = inboxDialects[this.dialect];
    this.sql = buildInboxQueries(this.spec, this.inboxSpec, this.table, skipLocked);
    this.claiming = {
      executor: this.executor,
      spec: this.spec,
      inboxSpec: this.inboxSpec,
      sql: this.sql,
      table: this.table,
      claimTimeoutMs: Math.ceil(claimTimeoutMs),
    };
    this.batcher = groupCommitFor(
      this.dialect,
      options.groupCommit,
      (deliveries) => this.insertBatch(deliveries),
      (delivery) => this.insert(delivery),
    );
    rememberConnection(this, db);
  }

  /**
   * Stores a new delivery: one `INSERT` that the unique `(provider, external_id)` index
   * arbitrates, resolving `false` for a delivery already stored. With group commit (the default),
   * concurrent calls share a transaction; each resolves once its own row has committed.
   * The key columns are checked first, as a receipt key is (no NUL, no unpaired surrogate, at
   * most 160 characters): a value no dialect can store is refused with `InvalidRequestKey`
   * naming the field, never sent to the database to fail there as a driver error.
   */
  async enqueue(delivery: NewDelivery): Promise<boolean> {
    checkKeyPart('provider', delivery.provider);
    checkKeyPart('externalId', delivery.externalId);
    if (delivery.orderingKey !== null) checkKeyPart('orderingKey', delivery.orderingKey);
    return this.batcher ? this.batcher.submit(delivery) : this.insert(delivery);
  }

  /** One delivery's `INSERT`, in `transaction` when given (a batch) or on its own. */
  private async insert(delivery: NewDelivery, transaction?: unknown): Promise<boolean> {
    const { provider, externalId, orderingKey, headers, body } = delivery;
    try {
      const { affected } = await this.executor.query(
        this.sql.enqueue,
        [provider, externalId, orderingKey, JSON.stringify(headers), body],
        transaction,
      );
      return affected === 1;
    } catch (error) {
      // MySQL has no "do nothing" for the insert: its duplicate-key error undoes the statement
      // alone, and a batch's transaction goes on. Any other error fails the batch, which is then
      // written again row by row.
      if (isDuplicateKey(this.spec, error)) return false;
      throw error;
    }
  }

  /** Every delivery of a batch in one transaction, in order. */
  private insertBatch(deliveries: readonly NewDelivery[]): Promise<boolean[]> {
    return this.executor.transaction(async (transaction) => {
      const stored: boolean[] = [];
      for (const delivery of deliveries) stored.push(await this.insert(delivery, transaction));
      return stored;
    });
  }

  /**
   * One short transaction: pick and lock the due rows, then lease them; bounded by
   * `claimTimeoutMs`. @throws {ConfigError} for a `limit` above 1000.
   */
  async claim(input: ClaimInput): Promise<Delivery[]> {
    return (await claimRowsOf(this.claiming, input, false)).map(toClaimed);
  }

  /** As {@link SqlInbox.claim}, reading only the references and counters: no body, no headers. */
  async claimRefs(input: ClaimInput): Promise<LeasedRef[]> {
    return (await claimRowsOf(this.claiming, input, true)).map(toLeasedRef);
  }

  /** One read of the index over unfinished deliveries: processing ones whose lease ran out. */
  async lapsed({ providers, limit, afterId }: LapsedInput): Promise<LeasedRef[]> {
    if (providers.length === 0 || limit < 1) return [];
    const { rows } = await this.executor.query(this.sql.lapsed(providers.length), [
      ...providers,
      afterId,
      limit,
    ]);
    return rows.map(toHeldRef);
  }

  async complete(lease: DeliveryLease): Promise<boolean> {
    return this.completeIn(lease, undefined);
  }

  /**
   * For a `SqlStore` built on the same `db` object as this inbox: marks a leased delivery done
   * inside that store's transaction (the worker's handler, its receipt and the delivery's `done`
   * then commit together). `undefined` for any other store: a store on another database or
   * connection (the SQLite setup with the deliveries in a file of their own) cannot run this
   * inbox's statements in its transactions.
   */
  completerFor(
    store: object,
  ): ((lease: DeliveryLease, transaction: unknown) => Promise<boolean>) | undefined {
    if (!sameConnection(this, store)) return undefined;
    return (lease, transaction) => this.completeIn(lease, transaction);
  }

  /**
   * For a `SqlStore` built on the same `db` object as this inbox: runs several first deliveries'
   * handlers in one of that store's transactions, their receipts (`completed`) and their `done`
   * written in it with one statement each (the worker's batches). `undefined` for any other store.
   */
  batcherFor(store: object): DeliveryBatcher | undefined {
    if (!(store instanceof SqlStore) || !sameConnection(this, store)) return undefined;
    return batcherOver(store, (leases, transaction) =>
      completeAllIn(this.executor, this.sql, leases, transaction),
    );
  }

  /** On SQLite, a receipts store on this very connection: the endpoint waits for its handlers. */
  cautionsFor: NonNullable<InboxStore['cautionsFor']> = (store) => sharedSqlite(this, store);
  private async completeIn(lease: DeliveryLease, transaction: unknown): Promise<boolean> {
    const { affected } = await this.executor.query(
      this.sql.complete,
      [lease.id, lease.attempts],
      transaction,
    );
    return affected === 1;
  }

  async retry(
    lease: DeliveryLease,
    { delayMs, error }: { readonly delayMs: number; readonly error: string | null },
  ): Promise<boolean> {
    const text = error === null ? null : storableText(error);
    const { affected } = await this.executor.query(this.sql.retry, [
      Math.max(0, Math.round(delayMs)),
      text,
      text === null ? 0 : 1,
      lease.id,
      lease.attempts,
    ]);
    return affected === 1;
  }

  /** One `UPDATE` for the whole batch, each row fenced by its own lease. */
  async extend(
    leases: readonly DeliveryLease[],
    { leaseMs }: { readonly leaseMs: number },
  ): Promise<number> {
    if (leases.length === 0) return 0;
    const { affected } = await this.executor.query(this.sql.extend(leases.length), [
      Math.max(0, Math.round(leaseMs)),
      ...leases.flatMap((lease) => [lease.id, lease.attempts]),
    ]);
    return affected;
  }

  async bury(lease: DeliveryLease, { error }: { readonly error: string }): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.bury, [
      storableText(error),
      lease.id,
      lease.attempts,
    ]);
    return affected === 1;
  }

  /** One conditional `UPDATE`, a compare-and-set on the status and attempts the operator saw. */
  async redeliver(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'dead' | 'done'>,
  ): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.redeliver, [
      provider,
      externalId,
      expected.status,
      expected.attempts,
    ]);
    return affected === 1;
  }

  /** One conditional `UPDATE`: only the pending delivery seen, still waiting, changes. */
  async retryNow(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'pending'>,
  ): Promise<boolean> {
    if (expected.status !== 'pending') return false;
    const { affected } = await this.executor.query(this.sql.retryNow, [
      provider,
      externalId,
      expected.attempts,
    ]);
    return affected === 1;
  }

  /**
   * True when the deliveries table exists; false when the database reports it missing (for
   * operations tools; not part of `InboxStore`).
   */
  async tableExists(): Promise<boolean> {
    try {
      await this.executor.query(this.sql.exists, []);
      return true;
    } catch (error) {
      if (isMissingTable(this.spec, error)) return false;
      throw error;
    }
  }

  async find(provider: string, externalId: string): Promise<StoredDelivery | null> {
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
  async list(input: DeliveryListInput = {}): Promise<DeliverySummary[]> {
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
   * Deletes `done` and `dead` deliveries finished more than `olderThanMs` ago, in batches of
   * `batchSize` rows (default 1000); never a pending or processing one.
   * @example
   * await inbox.purge({ olderThanMs: 30 * DAY });
   */
  async purge(input: Parameters<InboxStore['purge']>[0]): Promise<number> {
    const { olderThanMs, batchSize } = resolvePurgeInput(input);
    return deleteInBatches(
      (sql, params) => this.executor.query(sql, params),
      this.sql.purgeBatch,
      [olderThanMs],
      batchSize,
    );
  }

  /** Two grouped reads from the indexes, bounded in rows and time (inbox-backlog.ts). */
  backlog = (input: BacklogInput): Promise<InboxBacklog> =>
    readInboxBacklog(this.executor, this.table, input);
}
