/**
 * @module SqlStore: the Store contract over PostgreSQL, MySQL/MariaDB or SQLite, on a connection
 * with transactions (a driver, an ORM): the receipts table (table.ts) and its transactional
 * completion.
 */
import type { StoreCapabilities, TransactionOptions } from '@webhook-idempotency/core';
import { executorFor } from '../connections/detect';
import type { Executor } from '../connections/executor';
import { connectionIdentity } from '../connections/identity';
import type { SqlConnection, TransactionOf } from '../connections/types';
import { ReceiptsTable } from './table';
import { resolveTable } from './table-name';
import type { SqlStoreOptions } from './types';

/** Shared by processes and machines, transactional, timed by the database clock. */
const CAPABILITIES: StoreCapabilities = {
  crossProcess: true,
  transactional: true,
  clock: 'store',
  ignoredCounts: true,
};

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
export class SqlStore<Db extends SqlConnection = SqlConnection> extends ReceiptsTable<
  TransactionOf<Db>
> {
  private readonly executor: Executor;

  /**
   * @throws {ConfigError} naming `db` when it is not a supported connection.
   * @throws {ConfigError} when `table` is not a plain identifier or `acquireTimeoutMs` is not a positive number.
   */
  constructor(db: Db, options: SqlStoreOptions = {}) {
    const table = resolveTable(options.table);
    const executor = executorFor(db, options);
    super({
      runner: executor,
      connection: connectionIdentity(db, executor.dialect),
      table,
      capabilities: CAPABILITIES,
    });
    this.executor = executor;
  }

  /**
   * Runs `work` in a transaction on the store's database; see {@link TransactionOf} for the handle.
   * The handle refuses every call once the transaction has ended (`TransactionClosed`); when
   * `options.signal` aborts, the transaction ends at once (its connection is closed if a statement
   * is in flight) and this rejects. On PostgreSQL and MySQL, lock waits inside the transaction are
   * bounded by `options.timeoutMs` (PostgreSQL also ends a transaction left idle that long). When
   * `work` rejects and the rollback cannot be sent (the database ended the connection under it),
   * this rejects with a `StoreError` whose `cause` is what `work` rejected with.
   */
  withTransaction<T>(
    work: (transaction: TransactionOf<Db>) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    return this.executor.transaction((transaction) => work(transaction as TransactionOf<Db>), {
      lockStatement: this.spec.lockForWrite?.(this.spec.quote(this.table)),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }
}
