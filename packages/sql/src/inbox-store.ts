/** @module SqlInbox: the `InboxStore` contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §13). */
import { ConfigError } from '@webhook-idempotency/core';
import type {
  Delivery,
  DeliveryLease,
  DeliveryStatus,
  DeliverySummary,
  InboxStore,
  LeasedRef,
  NewDelivery,
  StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import type { DeliveryBatcher } from '@webhook-idempotency/core/adapter';
import { checkKeyPart, DEFAULT_PURGE_BATCH_SIZE } from '@webhook-idempotency/core/adapter';
import { executorFor, rememberConnection, sameConnection } from './connection';
import { type GroupCommit, groupCommitFor } from './group-commit';
import { dialects, isDuplicateKey, isMissingTable, type DialectSpec } from './dialects';
import type { Executor, Row } from './executor';
import { type InboxDialectSpec, inboxDialects } from './inbox-dialects';
import { buildInboxQueries, type InboxQueries } from './inbox-queries';
import { resolveInboxTable } from './inbox-schema';
import type { SqlInboxOptions } from './inbox-types';
import { receiptKeyOf, SqlStore, storableText } from './sql-store';
import type { SqlConnection, SqlDialect } from './types';

/** A batch's receipt was written by another run after the batch read it: the batch is rolled back. */
class BatchConflict extends Error {
  constructor() {
    super('SqlInbox: a receipt of this batch was written meanwhile by another run');
    this.name = 'BatchConflict';
  }
}

/** What a claim takes. */
interface ClaimInput {
  readonly providers: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
}

/** Most rows one `list` returns when no `limit` is given (`ReceiptsAdmin.list`'s is 50). */
const DEFAULT_LIST_LIMIT = 100;
/** The largest `limit` one `list` takes: page with `afterId` past it. */
const MAX_LIST_LIMIT = 10_000;
/** Reads and fenced writes one `redeliver` tries before it reports that the delivery kept changing. */
const REDELIVER_ROUNDS = 3;
const STATUSES: ReadonlySet<string> = new Set(['pending', 'processing', 'done', 'dead']);
/** A claim's default bound on lock waits and its run (`claimTimeoutMs`). */
const DEFAULT_CLAIM_TIMEOUT_MS = 5000;
/** How much longer than its bound a claim's connection is waited on before it is given up (a connection that went silent). */
const CLAIM_CLIENT_MARGIN_MS = 1000;
/** The most deliveries one claim or lease renewal takes (the placeholder limits of the databases). */
const MAX_LEASES = 1000;

// Key columns are VARBINARY on MySQL: the driver hands them back as bytes.
const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
const nullableText = (value: unknown): string | null =>
  value === null || value === undefined ? null : text(value);
const bytes = (value: unknown): Buffer =>
  Buffer.isBuffer(value)
    ? value
    : value instanceof Uint8Array
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : Buffer.from(String(value ?? ''), 'utf8');
const date = (value: unknown): Date => new Date(Number(value));

function headersOf(value: unknown): Record<string, string> {
  const parsed = JSON.parse(text(value)) as unknown;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
}

function toDelivery(row: Row, attempts = Number(row.attempts)): Delivery {
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    orderingKey: nullableText(row.ordering_key),
    headers: headersOf(row.headers),
    body: bytes(row.body),
    attempts,
    failures: Number(row.failures),
    receivedAt: date(row.received_ms),
  };
}

/** A claimed row as a relay holds it: counted as the claim counted it (`attempts + 1`, a takeover a failure). */
function toLeasedRef(row: Row): LeasedRef {
  const takenOver = text(row.status) === 'processing';
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    attempts: Number(row.attempts) + 1,
    failures: Number(row.failures) + (takenOver ? 1 : 0),
  };
}

/** A `lapsed` row: the lease it is still held under. */
const toHeldRef = (row: Row): LeasedRef => ({
  id: Number(row.id),
  provider: text(row.provider),
  externalId: text(row.external_id),
  attempts: Number(row.attempts),
  failures: Number(row.failures),
});

function toSummary(row: Row): DeliverySummary {
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    orderingKey: nullableText(row.ordering_key),
    attempts: Number(row.attempts),
    failures: Number(row.failures),
    receivedAt: date(row.received_ms),
    bodyBytes: Number(row.body_bytes ?? 0),
    ...stateOf(row),
  };
}

function stateOf(row: Row) {
  return {
    status: text(row.status) as DeliveryStatus,
    availableAt: date(row.available_ms),
    finishedAt:
      row.finished_ms === null || row.finished_ms === undefined ? null : date(row.finished_ms),
    lastError: nullableText(row.last_error),
  };
}

function toStored(row: Row): StoredDelivery {
  return { ...toDelivery(row), ...stateOf(row) };
}

function positive(option: string, value: unknown, integer: boolean): void {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isSafeInteger(value))
  )
    throw new ConfigError(
      option,
      `must be a ${integer ? 'whole ' : ''}number >= 0, got ${String(value)}`,
    );
}

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
   * @throws {TypeError} when `db` is not a supported connection.
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
    return (await this.claimRows(input, false)).map((row) => {
      const delivery = toDelivery(row, Number(row.attempts) + 1);
      return text(row.status) === 'processing'
        ? { ...delivery, failures: delivery.failures + 1 }
        : delivery;
    });
  }

  /** As {@link SqlInbox.claim}, reading only the references and counters: no body, no headers. */
  async claimRefs(input: ClaimInput): Promise<LeasedRef[]> {
    return (await this.claimRows(input, true)).map(toLeasedRef);
  }

  /** The claim's transaction; the rows as they were before the lease (`refs`: reference columns only). */
  private async claimRows(
    { providers, limit, leaseMs }: ClaimInput,
    refs: boolean,
  ): Promise<Row[]> {
    if (limit > MAX_LEASES) throw new ConfigError('limit', `must be at most ${MAX_LEASES}`);
    if (providers.length === 0 || limit < 1) return [];
    const bound = this.inboxSpec.boundClaim(
      this.sql.claimSelect(providers.length, refs),
      this.claimTimeoutMs,
    );
    return this.executor.transaction(
      async (transaction) => {
        if (bound.setup) await this.executor.query(bound.setup, [], transaction);
        const { rows } = await this.executor.query(
          bound.select,
          [...providers, limit],
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
    return {
      run: (deliveries, work, options) =>
        store.withTransaction(async (transaction) => {
          const receipts = await store.knownIn(
            deliveries.map((d) => ({ provider: d.provider, externalId: d.externalId })),
            transaction,
          );
          const known = new Set(
            deliveries
              .filter((d) => receipts.has(receiptKeyOf(d.provider, d.externalId)))
              .map((d) => d.id),
          );
          const entries = await work(transaction, known);
          if (entries.length === 0) return [];
          const recorded = await store.recordIn(
            entries.map(({ delivery, response }) => ({
              key: { provider: delivery.provider, externalId: delivery.externalId },
              response,
            })),
            transaction,
          );
          // Another run wrote one of these receipts since they were read: roll everything back
          // and let each delivery run on its own, where the receipt decides.
          if (!recorded) throw new BatchConflict();
          return this.completeAllIn(
            entries.map(({ delivery }) => delivery),
            transaction,
          );
        }, options),
    };
  }

  /** Marks each leased delivery done in `transaction`; per lease, whether it was still held. */
  private async completeAllIn(
    leases: readonly DeliveryLease[],
    transaction: unknown,
  ): Promise<boolean[]> {
    const params = [
      ...leases.map((lease) => lease.id),
      ...leases.flatMap((lease) => [lease.id, lease.attempts]),
    ];
    const { affected } = await this.executor.query(
      this.sql.completeMany(leases.length),
      params,
      transaction,
    );
    if (affected === leases.length) return leases.map(() => true);
    // Some lease was taken over meanwhile: which ones are now done under this batch's leases.
    const { rows } = await this.executor.query(this.sql.doneOf(leases.length), params, transaction);
    const done = new Set(rows.map((row) => Number(row.id)));
    return leases.map((lease) => done.has(lease.id));
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
   * 10 000; `afterId` (default 0) lists the deliveries after that id, for the next page.
   * @throws {ConfigError} for an unknown `status`, a `limit` that is not a whole number from 1 to
   * 10 000, or an `afterId` that is not a whole number.
   */
  async list(
    input: {
      readonly status?: DeliveryStatus;
      readonly provider?: string;
      readonly limit?: number;
      readonly afterId?: number;
    } = {},
  ): Promise<DeliverySummary[]> {
    const { status, provider, limit = DEFAULT_LIST_LIMIT, afterId = 0 } = input;
    if (!Number.isSafeInteger(afterId) || afterId < 0)
      throw new ConfigError('afterId', `must be a whole number >= 0, got ${String(afterId)}`);
    if (Number.isSafeInteger(limit) && limit > MAX_LIST_LIMIT)
      throw new ConfigError(
        'limit',
        `must be at most ${MAX_LIST_LIMIT}, got ${limit}: page with afterId`,
      );
    if (status !== undefined && !STATUSES.has(status))
      throw new ConfigError('status', `must be one of ${[...STATUSES].join(', ')}`);
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new ConfigError('limit', `must be a positive whole number, got ${String(limit)}`);
    const params: unknown[] = [afterId];
    if (status !== undefined) params.push(status);
    if (provider !== undefined) params.push(provider);
    const statement = this.sql.list({
      status: status !== undefined,
      provider: provider !== undefined,
    });
    const { rows } = await this.executor.query(statement, [...params, limit]);
    return rows.map(toSummary);
  }

  /**
   * Deletes `done` and `dead` deliveries finished more than `olderThanMs` ago, in batches of
   * `batchSize` rows (default 1000); never a pending or processing one.
   * @example
   * await inbox.purge({ olderThanMs: 30 * DAY });
   */
  async purge({
    olderThanMs,
    batchSize = DEFAULT_PURGE_BATCH_SIZE,
  }: {
    readonly olderThanMs: number;
    readonly batchSize?: number;
  }): Promise<number> {
    positive('olderThanMs', olderThanMs, false);
    positive('batchSize', batchSize, true);
    if (batchSize < 1) throw new ConfigError('batchSize', 'must be at least 1');
    const { sql, params } = this.sql.purgeBatch;
    const bound = params([olderThanMs], batchSize);
    let total = 0;
    for (;;) {
      const { affected } = await this.executor.query(sql, bound);
      total += affected;
      if (affected < batchSize) return total;
    }
  }
}
