/**
 * @module `fromPostgres(sql)`: `SqlStore` and `SqlInbox` over the application's postgres-js (`postgres`)
 * `sql` instance. A transactional handler gets the `sql` of the transaction (`TransactionSql`):
 * what it writes through it and the receipt commit or roll back together.
 */
import type { Sql, TransactionSql } from 'postgres';
import { ConfigError } from '@webhook-idempotency/core';
import { dialects } from '../dialects';
import type { Executor, QueryResult } from './executor';
import {
  callbackTransaction,
  countOf,
  ormConnection,
  EXECUTOR,
  isPostgresJsInstance,
  type OrmConnection,
} from './orm';

/** What the store uses of a postgres-js `sql` (or of a transaction's). */
interface Unsafe {
  unsafe(
    query: string,
    parameters?: unknown[],
    options?: { prepare?: boolean },
  ): PromiseLike<Record<string, unknown>[] & { count?: number | null }>;
}

/** True for a postgres-js `sql` instance ({@link isPostgresJsInstance}). */
const isPostgresJs = (db: unknown): db is Sql => isPostgresJsInstance(db);

async function run(
  runner: Unsafe,
  sql: string,
  params: readonly unknown[],
  prepare: boolean,
): Promise<QueryResult> {
  const rows = await runner.unsafe(dialects.postgres.placeholders(sql), [...params], { prepare });
  return { rows, affected: countOf(rows.count, rows.length) };
}

function postgresExecutor(db: Sql, acquireTimeoutMs: number, prepare: boolean): Executor {
  const unsafe = db as unknown as Unsafe;
  return {
    dialect: 'postgres',
    query: (sql, params, transaction) =>
      run((transaction as Unsafe | undefined) ?? unsafe, sql, params, prepare),
    transaction: (work, options = {}) =>
      callbackTransaction(work, options, {
        open: (body) => db.begin((tx) => body(tx)) as PromiseLike<{ value: unknown }>,
        setup: options.timeoutMs
          ? (tx) =>
              run(
                tx as unknown as Unsafe,
                dialects.postgres.transactionBounds(options.timeoutMs!).join('; '),
                [],
                false,
              )
          : undefined,
        acquireTimeoutMs,
        writesAfterClose: true,
      }),
  };
}

/**
 * `sql`, the application's postgres-js instance (`postgres(url)`), as a connection for
 * `new SqlStore(…)`, `new SqlInbox(…)`, `Schema.createTable(…)` and `ReceiptsAdmin`. The store's
 * statements run through `sql.unsafe`, prepared unless `preparedStatements: false` (for a
 * transaction pooler such as PgBouncer in transaction mode, as postgres-js's own `prepare: false`);
 * a transactional handler gets the `sql` of a `sql.begin` transaction, with the guard's deadline
 * as its lock wait bound and idle limit.
 *
 * @example
 * ```ts
 * const sql = postgres(process.env.DATABASE_URL!);
 * const store = new SqlStore(fromPostgres(sql));
 * guard.run(key, async ({ transaction: tx }) => {
 *   await tx!`INSERT INTO orders (id) VALUES (${id})`;
 * });
 * ```
 * @throws {ConfigError} naming `db` when `sql` is not a postgres-js instance (a transaction's
 * `sql` cannot begin the store's transactions: pass the instance).
 */
// biome-ignore lint/complexity/noBannedTypes: postgres-js's own default for its custom types
export function fromPostgres<Types extends Record<string, unknown> = {}>(
  sql: Sql<Types>,
): OrmConnection<TransactionSql<Types>> {
  if (!isPostgresJs(sql))
    throw new ConfigError(
      'db',
      'must be a postgres-js instance, postgres(url); a transaction’s sql cannot open the store’s transactions',
    );
  const transform = (sql as unknown as { options?: { transform?: Record<string, unknown> } })
    .options?.transform;
  const rewrites = ['column', 'value', 'row'].filter(
    (kind) => typeof (transform?.[kind] as { from?: unknown } | undefined)?.from === 'function',
  );
  if (rewrites.length > 0)
    throw new ConfigError(
      'db',
      `transforms the ${rewrites.join(', ')} of every result (postgres-js's \`transform\` option), which would rename or change the store's own columns; give the store a postgres() instance without it, on the same database`,
    );
  return ormConnection(sql, () => ({
    kind: 'postgres-js',
    dialect: 'postgres',
    [EXECUTOR]: ({ acquireTimeoutMs, preparedStatements }) =>
      postgresExecutor(sql as unknown as Sql, acquireTimeoutMs, preparedStatements),
  }));
}
