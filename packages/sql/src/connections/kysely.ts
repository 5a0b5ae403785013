/**
 * @module `fromKysely(db)`: `SqlStore` and `SqlInbox` over the application's Kysely instance, its
 * PostgreSQL, MySQL and SQLite dialects. A transactional handler gets Kysely's own
 * `Transaction<DB>`: what it writes through it and the receipt commit or roll back together.
 */
import type { CompiledQuery, Kysely, QueryResult as KyselyResult, Transaction } from 'kysely';
import { ConfigError } from '@webhook-idempotency/core';
import { dialects } from '../dialects';
import { acquireWithin, type Executor } from './executor';
import { runHeldTransaction } from './held-transaction';
import { countOf, ormConnection, EXECUTOR, type OrmConnection } from './orm';
import type { SqlDialect } from '../dialects/name';

/**
 * Kysely's dialect of `db`, from the name of the adapter its dialect created (`PostgresAdapter`,
 * `MysqlAdapter`, `SqliteAdapter`, which third-party dialects such as kysely-postgres-js reuse).
 * By name, not `instanceof`: this module imports nothing of kysely at run time, so it works with
 * whichever copy and module format of kysely the application loaded.
 */
function dialectOf(db: Kysely<unknown>): SqlDialect {
  const adapter = (db as unknown as { getExecutor?(): { adapter?: object } }).getExecutor?.()
    .adapter;
  const name = adapter?.constructor.name ?? '';
  if (/^Postgres/.test(name)) return 'postgres';
  if (/^Mysql/.test(name)) return 'mysql';
  if (/^Sqlite/.test(name)) return 'sqlite';
  throw new ConfigError(
    'db',
    `the Kysely instance's dialect (${name || 'unknown adapter'}) is not supported; use PostgresDialect, MysqlDialect or SqliteDialect (or a dialect built on their adapters)`,
  );
}

let queries = 0;

/**
 * A statement as Kysely's `CompiledQuery.raw(sql, parameters)` builds it: the text, its
 * parameters, a raw operation node and a query id (what plugins' `transformResult` is keyed by).
 */
function compiled(sql: string, parameters: readonly unknown[]): CompiledQuery {
  return Object.freeze({
    sql,
    parameters: Object.freeze([...parameters]),
    query: Object.freeze({
      kind: 'RawNode',
      sqlFragments: Object.freeze([sql]),
      parameters: Object.freeze([]),
    }),
    queryId: Object.freeze({ queryId: `webhook_idempotency_${++queries}` }),
  }) as unknown as CompiledQuery;
}

/** Kysely's result → the store's: rows, the affected count (rows returned where it reports none), the insert id. */
function resultOf(result: KyselyResult<unknown>) {
  const rows = result.rows as Record<string, unknown>[];
  const insertId = countOf(result.insertId, 0);
  return {
    rows,
    affected: countOf(result.numAffectedRows, rows.length),
    ...(insertId > 0 ? { insertId } : {}),
  };
}

function kyselyExecutor(
  db: Kysely<unknown>,
  dialect: SqlDialect,
  acquireTimeoutMs: number,
): Executor {
  const spec = dialects[dialect];
  // Without the instance's plugins: a CamelCasePlugin or ParseJSONResultsPlugin would rename or
  // parse the store's own columns. The handler's transaction keeps them.
  const run = async (runner: Kysely<unknown>, sql: string, params: readonly unknown[]) =>
    resultOf(await runner.withoutPlugins().executeQuery(compiled(spec.placeholders(sql), params)));
  return {
    dialect,
    query: (sql, params, transaction) =>
      run((transaction as Kysely<unknown> | undefined) ?? db, sql, params),
    async transaction(work, options = {}) {
      const { lockStatement, signal, timeoutMs } = options;
      // A transaction that begins after the wait gave up is rolled back, never left open.
      const trx = await acquireWithin(
        () => db.startTransaction().execute(),
        (late) =>
          void late
            .rollback()
            .execute()
            .catch(() => undefined),
        acquireTimeoutMs,
      );
      return runHeldTransaction(
        {
          handle: trx,
          async setup() {
            if (lockStatement) await run(trx, lockStatement, []);
            const bounds = timeoutMs ? spec.transactionBounds(timeoutMs) : [];
            if (bounds.length > 0) await run(trx, bounds.join('; '), []);
          },
          commit: () => trx.commit().execute(),
          rollback: () => trx.rollback().execute(),
          giveBack: () => false,
          // A statement of the handler may still be in flight: the rollback queues behind it
          // (Kysely cannot cut it), but the handle is closed and the guard has answered.
          abandon: () =>
            void trx
              .rollback()
              .execute()
              .catch(() => undefined),
          discard: () => undefined,
        },
        work,
        signal,
      );
    },
  };
}

/**
 * `db`, the application's Kysely instance, as a connection for `new SqlStore(…)`,
 * `new SqlInbox(…)`, `Schema.createTable(…)` and `ReceiptsAdmin`. The store's statements run
 * through `db.withoutPlugins().executeQuery` (its logging sees them; its plugins, which could
 * rename or parse the store's columns, do not); a transactional handler gets
 * Kysely's `Transaction<DB>` (`context.transaction`), begun by `db.startTransaction()` with the
 * receipt's table locked first on SQLite and the guard's deadline as the lock wait bound on
 * PostgreSQL and MySQL.
 *
 * Kysely sends each statement unnamed, so the server plans it every time
 * (`preparedStatements` has no effect here); pool waits are bounded by `acquireTimeoutMs` around
 * Kysely's own acquisition.
 *
 * @example
 * ```ts
 * const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
 * const store = new SqlStore(fromKysely(db));
 * guard.run(key, async ({ transaction: trx }) => {
 *   await trx!.insertInto('orders').values({ id }).execute();
 * });
 * ```
 * @throws {ConfigError} naming `db` when it is a Kysely transaction (pass the instance) or its
 * dialect is not PostgreSQL, MySQL or SQLite.
 */
export function fromKysely<DB>(db: Kysely<DB>): OrmConnection<Transaction<DB>> {
  if ((db as { isTransaction?: unknown }).isTransaction === true)
    throw new ConfigError(
      'db',
      'is a Kysely transaction; pass the Kysely instance, and the store opens its transactions',
    );
  const kysely = db as unknown as Kysely<unknown>;
  return ormConnection(kysely, () => {
    const dialect = dialectOf(kysely);
    return {
      kind: `Kysely (${dialect})`,
      dialect,
      [EXECUTOR]: ({ acquireTimeoutMs }) => kyselyExecutor(kysely, dialect, acquireTimeoutMs),
    };
  });
}
