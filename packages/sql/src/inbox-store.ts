/** @module SqlInbox: the `InboxStore` contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §13). */
import { ConfigError } from '@webhook-idempotency/core';
import type {
  Delivery,
  DeliveryLease,
  DeliveryListInput,
  DeliverySummary,
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
import { executorFor, rememberConnection, sameConnection } from './connection';
import { type GroupCommit, groupCommitFor } from './group-commit';
import { dialects, isDuplicateKey, isMissingTable, type DialectSpec } from './dialects';
import type { Executor, Row } from './executor';
import { type InboxDialectSpec, inboxDialects } from './inbox-dialects';
import { buildInboxQueries, type InboxQueries, storableRange } from './inbox-queries';
import { resolveInboxTable } from './inbox-schema';
import type { SqlInboxOptions } from './inbox-types';
import { batcherOver, completeAllIn } from './inbox-batcher';
import { toClaimed, text, toHeldRef, toLeasedRef, toStored, toSummary } from './inbox-rows';
import { storableText } from './rows';
import { SqlStore } from './sql-store';
import type { SqlConnection, SqlDialect } from './types';

/** What a claim takes. */
interface ClaimInput {
  readonly providers: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
  /** Which expired leases are taken over: all (`true`), none, or those listed (`claimRefs`). */
  readonly takeOver?: boolean | readonly DeliveryLease[];
}

/** Reads and fenced writes one `redeliver` tries before it reports that the delivery kept changing. */
const REDELIVER_ROUNDS = 3;
/** A claim's default bound on lock waits and its run (`claimTimeoutMs`). */
const DEFAULT_CLAIM_TIMEOUT_MS = 5000;
/** How much longer than its bound a claim's connection is waited on before it is given up (a connection that went silent). */
const CLAIM_CLIENT_MARGIN_MS = 1000;
/** The most deliveries one claim or lease renewal takes (the placeholder limits of the databases). */
const MAX_LEASES = 1000;

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
  private readonly claimTimeoutMs: number;
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
    this.claimTimeoutMs = Math.ceil(claimTimeoutMs);
    this.executor = executorFor(db, options);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.inboxSpec = inboxDialects[this.dialect];
    this.sql = buildInboxQueries(this.spec, this.inboxSpec, this.table, skipLocked);
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
    return (await this.claimRows(input, false)).map(toClaimed);
  }

  /** As {@link SqlInbox.claim}, reading only the references and counters: no body, no headers. */
  async claimRefs(input: ClaimInput): Promise<LeasedRef[]> {
    return (await this.claimRows(input, true)).map(toLeasedRef);
  }

  /** The claim's transaction; the rows as they were before the lease (`refs`: reference columns only). */
  private async claimRows(
    { providers, limit, leaseMs, takeOver = true }: ClaimInput,
    refs: boolean,
  ): Promise<Row[]> {
    if (limit > MAX_LEASES) throw new ConfigError('limit', `must be at most ${MAX_LEASES}`);
    if (typeof takeOver !== 'boolean' && (!Array.isArray(takeOver) || takeOver.length > MAX_LEASES))
      throw new ConfigError('takeOver', `must be a boolean or at most ${MAX_LEASES} leases`);
    if (providers.length === 0 || limit < 1) return [];
    const listed = typeof takeOver === 'boolean' ? [] : takeOver;
    const bound = this.inboxSpec.boundClaim(
      this.sql.claimSelect(
        providers.length,
        refs,
        typeof takeOver === 'boolean' ? takeOver : listed.length,
      ),
      this.claimTimeoutMs,
    );
    const leaseParams = listed.flatMap((lease) => [lease.id, lease.attempts]);
    return this.executor.transaction(
      async (transaction) => {
        if (bound.setup) await this.executor.query(bound.setup, [], transaction);
        const { rows } = await this.executor.query(
          bound.select,
          [...providers, ...leaseParams, limit],
          transaction,
        );
        if (rows.length === 0) return [];
        await this.executor.query(
          this.sql.claimUpdate(rows.length),
          [leaseMs, ...rows.map((row) => Number(row.id))],
          transaction,
        );
        return [...rows];
      },
      {
        lockStatement: this.spec.lockForWrite?.(this.spec.quote(this.table)),
        signal: AbortSignal.timeout(this.claimTimeoutMs + CLAIM_CLIENT_MARGIN_MS),
      },
    );
  }

  /** One read of the index over unfinished deliveries: processing ones whose lease ran out. */
  async lapsed({
    providers,
    limit,
    afterId,
  }: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly afterId: number;
  }): Promise<LeasedRef[]> {
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

  /**
   * Reads the status, then one `UPDATE` fenced on it and on `attempts`; when a concurrent change
   * wins in between, reads again (a few times at most) and reports what it finds.
   * @example
   * if ((await inbox.redeliver('stripe', 'evt_1')) === null) console.log('not finished');
   */
  async redeliver(provider: string, externalId: string): Promise<'dead' | 'done' | null> {
    for (let round = 0; round < REDELIVER_ROUNDS; round++) {
      const { rows } = await this.executor.query(this.sql.statusOf, [provider, externalId]);
      const status = rows[0] ? text(rows[0].status) : null;
      if (status !== 'dead' && status !== 'done') return null;
      const { affected } = await this.executor.query(this.sql.redeliver, [
        provider,
        externalId,
        status,
        Number(rows[0]!.attempts),
      ]);
      if (affected === 1) return status;
    }
    return null;
  }

  /** One conditional `UPDATE`: only a pending delivery not due yet changes. */
  async retryNow(provider: string, externalId: string): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.retryNow, [provider, externalId]);
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
