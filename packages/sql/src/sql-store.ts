/** @module SqlStore: the Store contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §4, §5, §7). */
import { ConfigError, DEFAULT_PURGE_BATCH_SIZE, type ReceiptStatus } from '@webhook-idempotency/core';
import type { At, ClaimResult, KeyLike, ObservedReceipt, Store, StoreCapabilities } from '@webhook-idempotency/core';
import { DEFAULT_ACQUIRE_TIMEOUT_MS } from './constants';
import { createExecutor } from './connection';
import { dialects, isDuplicateKey, type DialectSpec } from './dialects';
import type { Executor, Row } from './executor';
import { buildQueries, type Queries } from './queries';
import { resolveTable } from './table-name';
import type { SqlConnection, SqlDialect, SqlStoreOptions, TransactionOf } from './types';

/** A claim that lost, then found no row (purged in between), tries again this many times. */
const CLAIM_ROUNDS = 3;

// Key columns are VARBINARY on MySQL: the driver hands them back as bytes.
const text = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : text(value));

function toReceipt(row: Row): ObservedReceipt {
  const claimedMs = Number(row.claimed_ms);
  const finishedMs = row.finished_ms === null || row.finished_ms === undefined ? null : Number(row.finished_ms);
  return {
    provider: text(row.provider),
    externalId: text(row.external_id),
    status: text(row.status) as ReceiptStatus,
    response: nullableText(row.response),
    attempts: Number(row.attempts),
    error: nullableText(row.error),
    fingerprint: nullableText(row.fingerprint),
    claimedAt: new Date(claimedMs),
    finishedAt: finishedMs === null ? null : new Date(finishedMs),
    claimAgeMs: Math.max(0, Number(row.db_now) - claimedMs),
  };
}

/**
 * The receipts table in the application's own database: its unique index decides which delivery
 * runs the handler, across every process and machine sharing the database. Every timestamp and
 * every staleness decision uses the database's clock.
 *
 * `db` is the connection the application already has — a knex instance, a `pg` Pool, a `mysql2`
 * pool (promise or callback API) or a `better-sqlite3` Database; the store never opens or closes
 * it. Create the table first with `Schema.createTable(db)` or a migration (`Schema.statements`).
 *
 * Transactional mode (`new IdempotencyGuard(store, { transactional: true })`) runs the handler in
 * a transaction on `db` and writes `completed` in it, so the business writes and the receipt
 * commit or roll back together; the handler gets the handle as `context.transaction`, typed by
 * {@link TransactionOf}.
 *
 * @example
 * const store = new SqlStore(new pg.Pool({ connectionString }), { table: 'webhook_receipts' });
 * const guard = new IdempotencyGuard(store, { transactional: true });
 * await guard.run(new RequestKey('stripe', event.id), async ({ transaction }) => {
 *   await transaction!.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
 *   return { received: true };
 * });
 * @see packages/sql/README.md
 */
export class SqlStore<Db extends SqlConnection = SqlConnection> implements Store<TransactionOf<Db>> {
  /** Shared by processes and machines, transactional, timed by the database clock. */
  readonly capabilities: StoreCapabilities = { crossProcess: true, transactional: true, clock: 'store' };
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The receipts table name. */
  readonly table: string;
  private readonly executor: Executor;
  private readonly spec: DialectSpec;
  private readonly sql: Queries;

  /**
   * @throws {TypeError} when `db` is not a supported connection.
   * @throws {ConfigError} when `table` is not a plain identifier or `acquireTimeoutMs` is not a positive number.
   */
  constructor(db: Db, options: SqlStoreOptions = {}) {
    const { acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS } = options;
    this.table = resolveTable(options.table);
    if (typeof acquireTimeoutMs !== 'number' || !Number.isFinite(acquireTimeoutMs) || acquireTimeoutMs <= 0) {
      throw new ConfigError('acquireTimeoutMs', `must be a positive number of milliseconds, got ${String(acquireTimeoutMs)}`);
    }
    this.executor = createExecutor(db, acquireTimeoutMs);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.sql = buildQueries(this.spec, this.table);
  }

  /** One `INSERT` that the unique index arbitrates; the loser reads the existing row. */
  async claim(key: KeyLike, { fingerprint }: At & { readonly fingerprint: string | null }): Promise<ClaimResult> {
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      let won = false;
      try {
        const params = [key.provider, key.externalId, fingerprint];
        if (this.sql.claimReadsExisting) params.push(key.provider, key.externalId);
        const { rows, affected } = await this.executor.query(this.sql.claim, params);
        const row = rows[0];
        if (row) return { won: Number(row.won) === 1, receipt: toReceipt(row) } as ClaimResult;
        // Without RETURNING (MySQL) the affected count says whether this INSERT won.
        won = affected === 1;
      } catch (error) {
        if (!isDuplicateKey(this.spec, error)) throw error;
      }
      const receipt = await this.read(key);
      // Only a purge between the INSERT and this read leaves nothing: claim again.
      if (receipt) return { won, receipt } as ClaimResult;
      if (won) throw new Error(`SqlStore: the receipt ${key.provider}/${key.externalId} vanished right after it was claimed`);
    }
    throw new Error(`SqlStore: could not claim or read ${key.provider}/${key.externalId} after ${CLAIM_ROUNDS} rounds`);
  }

  /** One conditional `UPDATE` fenced by `attempts`; staleness is judged by the database clock. */
  async reclaim(key: KeyLike, { attempts, staleAfterMs }: At & { readonly attempts: number; readonly staleAfterMs: number }): Promise<ObservedReceipt | null> {
    const result = await this.executor.query(this.sql.reclaim, [key.provider, key.externalId, attempts, staleAfterMs]);
    if (result.affected !== 1) return null;
    return result.rows[0] ? toReceipt(result.rows[0]) : this.read(key);
  }

  /** One conditional `UPDATE` fenced by `attempts`; inside `transaction` when given. */
  async complete(
    key: KeyLike,
    { attempts, response }: At & { readonly attempts: number; readonly response: string },
    transaction?: TransactionOf<Db>,
  ): Promise<boolean> {
    const result = await this.executor.query(this.sql.complete, [response, key.provider, key.externalId, attempts], transaction);
    return result.affected === 1;
  }

  /** One conditional `UPDATE` fenced by `attempts`. */
  async fail(key: KeyLike, { attempts, error }: At & { readonly attempts: number; readonly error: string }): Promise<boolean> {
    const result = await this.executor.query(this.sql.fail, [error, key.provider, key.externalId, attempts]);
    return result.affected === 1;
  }

  /** Reads the receipt with the database's "now" in the same statement. */
  find(key: KeyLike, _at: At): Promise<ObservedReceipt | null> {
    return this.read(key);
  }

  /** Deletes finished receipts (of `provider`, when given) one statement per batch of `batchSize` rows (default 1000); never a `processing` one. */
  async purge({
    olderThanMs,
    batchSize = DEFAULT_PURGE_BATCH_SIZE,
    provider,
  }: At & { readonly olderThanMs: number; readonly batchSize?: number; readonly provider?: string }): Promise<number> {
    const [statement, params] =
      provider === undefined ? [this.sql.purgeBatch, [olderThanMs, batchSize]] : [this.sql.purgeProviderBatch, [provider, olderThanMs, batchSize]];
    let total = 0;
    for (;;) {
      const { affected } = await this.executor.query(statement, params);
      total += affected;
      if (affected < batchSize) return total;
    }
  }

  /** Runs `work` in a transaction on the store's database; see {@link TransactionOf} for the handle. */
  withTransaction<T>(work: (transaction: TransactionOf<Db>) => Promise<T>): Promise<T> {
    return this.executor.transaction(
      (transaction) => work(transaction as TransactionOf<Db>),
      this.spec.lockForWrite?.(this.spec.quote(this.table)),
    );
  }

  private async read(key: KeyLike): Promise<ObservedReceipt | null> {
    const { rows } = await this.executor.query(this.sql.find, [key.provider, key.externalId]);
    return rows[0] ? toReceipt(rows[0]) : null;
  }
}
