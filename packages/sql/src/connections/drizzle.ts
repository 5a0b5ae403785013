/**
 * @module `fromDrizzle(db)`: `SqlStore` and `SqlInbox` over the application's Drizzle database: node-postgres
 * or postgres-js for PostgreSQL, mysql2 for MySQL/MariaDB, better-sqlite3 for SQLite (libSQL in
 * memory; a libSQL file is refused, see drizzle-libsql.ts). A
 * transactional handler gets Drizzle's own `tx`: what it writes through it and the receipt commit
 * or roll back together.
 */
import { is, type SQL } from 'drizzle-orm';
import { MySqlDatabase, MySqlTransaction } from 'drizzle-orm/mysql-core';
import { PgDatabase, PgTransaction } from 'drizzle-orm/pg-core';
import { BaseSQLiteDatabase, SQLiteTransaction } from 'drizzle-orm/sqlite-core';
import { ConfigError } from '@webhook-idempotency/core';
import { dialects } from '../dialects';
import { gateOf, isBetterSqlite, shareGate, sqliteExecutor } from './sqlite';
import { gate, type Executor, type QueryResult, type Row } from './executor';
import { isLibsql, libsqlExecutor, type RunsAsync } from './drizzle-libsql';
import { statement, unwrap } from './drizzle-statement';
import {
  callbackTransaction,
  countOf,
  isPostgresJsInstance,
  ormConnection,
  EXECUTOR,
  type OrmConnection,
} from './orm';
import type { SqlDialect } from '../dialects/name';

/**
 * The handle a transactional handler gets from a store over the Drizzle database `D`: the `tx` of
 * `D`'s `transaction` callback; over better-sqlite3, whose transactions cannot await, `D` itself,
 * inside `BEGIN IMMEDIATE` on its one connection.
 */
export type DrizzleTransactionOf<D> =
  D extends BaseSQLiteDatabase<'sync', infer _Run, infer _Full, infer _Schema>
    ? D
    : D extends {
          transaction(work: (tx: infer Tx) => Promise<unknown>, ...rest: never[]): Promise<unknown>;
        }
      ? Tx
      : never;

/** What the store calls on a Drizzle database of PostgreSQL or MySQL (and on its `tx`). */
interface Executes {
  execute(query: SQL): Promise<unknown>;
  transaction(work: (tx: Executes) => Promise<unknown>): Promise<unknown>;
}

/** A PostgreSQL result: node-postgres's `{ rows, rowCount }`, postgres-js's row list with `count`. */
function pgResult(result: unknown): QueryResult {
  if (Array.isArray(result))
    return {
      rows: result as Row[],
      affected: countOf((result as { count?: unknown }).count, result.length),
    };
  const { rows = [], rowCount } = result as { rows?: Row[]; rowCount?: unknown };
  return { rows, affected: countOf(rowCount, rows.length) };
}

/** A mysql2 result: `[rows, fields]` of a read, `[ResultSetHeader, undefined]` of a write. */
function mysqlResult(result: unknown): QueryResult {
  const value = Array.isArray(result) ? result[0] : result;
  if (Array.isArray(value)) return { rows: value as Row[], affected: value.length };
  const { affectedRows, insertId } = value as { affectedRows?: unknown; insertId?: unknown };
  const id = countOf(insertId, 0);
  return { rows: [], affected: countOf(affectedRows, 0), ...(id > 0 ? { insertId: id } : {}) };
}

/** node-postgres clients the store has lent an 'error' listener to. */
const listening = new WeakSet<object>();

/**
 * Drizzle over a `pg` Pool holds a pooled client for the transaction, and pg-pool removes its own
 * 'error' listener while a client is checked out: a database restart or a cut connection then
 * emits an 'error' nobody listens to, which ends the process. The store holds this transaction,
 * so it owns the client's errors for the client's lifetime (as over a `pg` Pool passed directly):
 * the statement in flight, or the next one, fails with the error instead.
 */
function ownClient(tx: unknown): void {
  const client = (tx as { session?: { client?: unknown } }).session?.client as
    | { on?: (event: string, listener: () => void) => void; release?: unknown }
    | undefined;
  if (!client || typeof client.on !== 'function' || typeof client.release !== 'function') return;
  if (listening.has(client)) return;
  listening.add(client);
  client.on('error', () => undefined);
}

/** True for a single connection of a driver whose pools have `poolMember` (`totalCount`, `getConnection`). */
function isLoneConnection(client: unknown, poolMember: string): boolean {
  if (typeof client !== 'object' || client === null) return false;
  const candidate = client as Record<string, unknown>;
  return typeof candidate.query === 'function' && !(poolMember in candidate);
}

/** How the store runs on a Drizzle database over a server (PostgreSQL, MySQL): its driver's results and its connections. */
interface ServerCore {
  readonly dialect: SqlDialect;
  /** A statement's result as the driver under Drizzle returns it. */
  readonly read: (result: unknown) => QueryResult;
  /** What the store takes on for a transaction's connection (its errors). */
  readonly own?: (tx: unknown) => void;
  /** The member a pool of this driver has and a lone connection has not. */
  readonly poolMember: string;
  /** Why a lone connection is refused. */
  readonly lone: string;
}

/** Drizzle's server cores, by the class of their databases. */
const SERVER_CORES: readonly (ServerCore & { readonly database: object })[] = [
  {
    database: PgDatabase,
    dialect: 'postgres',
    read: pgResult,
    own: ownClient,
    poolMember: 'totalCount',
    lone: 'is a Drizzle database over a single pg Client; give drizzle() a pg Pool',
  },
  {
    database: MySqlDatabase,
    dialect: 'mysql',
    read: mysqlResult,
    poolMember: 'getConnection',
    lone: 'is a Drizzle database over a single mysql2 Connection; give drizzle() a pool',
  },
];

/** Over PostgreSQL and MySQL: statements through `execute`, transactions through `db.transaction`. */
function serverExecutor(db: Executes, core: ServerCore, acquireTimeoutMs: number): Executor {
  // Drizzle's transactions over postgres-js are `sql.begin`s, which write their end to a closed connection.
  const writesAfterClose = isPostgresJsInstance((db as { $client?: unknown }).$client);
  const { dialect, read } = core;
  const run = async (runner: Executes, text: string, params: readonly unknown[]) => {
    try {
      return read(await runner.execute(statement(text, params)));
    } catch (error) {
      throw unwrap(error);
    }
  };
  const bounds = (timeoutMs: number) => dialects[dialect].transactionBounds(timeoutMs).join('; ');
  return {
    dialect,
    query: (text, params, transaction) =>
      run((transaction as Executes | undefined) ?? db, text, params),
    transaction: (work, options = {}) =>
      callbackTransaction(work, options, {
        open: (body) =>
          db.transaction(body as (tx: Executes) => Promise<{ value: unknown }>) as Promise<{
            value: unknown;
          }>,
        setup: async (tx) => {
          core.own?.(tx);
          if (options.timeoutMs) await run(tx as Executes, bounds(options.timeoutMs), []);
        },
        acquireTimeoutMs,
        unwrap,
        writesAfterClose,
      }),
  };
}

/**
 * Over better-sqlite3: the store's statements and transactions on the Database itself (as for a
 * better-sqlite3 Database passed directly), the handler given the Drizzle database, gated by the
 * transaction, so its writes land inside `BEGIN IMMEDIATE` on the one connection.
 */
function sqliteOverDrizzle(
  db: object,
  client: Parameters<typeof sqliteExecutor>[0],
  waitMs: number,
): Executor {
  const inner = sqliteExecutor(client, waitMs);
  return {
    ...inner,
    transaction: (work, options) =>
      inner.transaction((raw) => {
        const state = gateOf(raw);
        if (!state) throw new Error('the SQLite transaction handle has no gate');
        const handle = gate(db, state);
        shareGate(handle, state);
        return work(handle);
      }, options),
  };
}

/**
 * `db`, the application's Drizzle database (`drizzle(pool)`, `drizzle(sql)` over postgres-js,
 * `drizzle(database)` over better-sqlite3, `drizzle({ client })` over libSQL in memory), as a connection
 * for `new SqlStore(…)`, `new SqlInbox(…)`, `Schema.createTable(…)` and `ReceiptsAdmin`. The
 * store's statements go through Drizzle's `sql` (so its logger sees them); a transactional handler
 * gets `tx` of `db.transaction` with the guard's deadline as the lock wait bound (PostgreSQL,
 * MySQL), or over better-sqlite3 the database itself inside `BEGIN IMMEDIATE`: better-sqlite3's
 * transactions cannot span an `await`, so the store holds the one connection's transaction itself.
 * Over libSQL in memory the handler gets `tx` of `db.transaction(…)`; the store's writes and
 * transactions on the one connection take turns. A libSQL file is refused at the first statement.
 *
 * @example
 * ```ts
 * const db = drizzle(pool, { schema });
 * const store = new SqlStore(fromDrizzle(db));
 * guard.run(key, async ({ transaction: tx }) => {
 *   await tx!.insert(orders).values({ id });
 * });
 * ```
 * @throws {ConfigError} naming `db` when it is a Drizzle transaction (pass the database), not a
 * Drizzle database, over a single pg Client or mysql2 Connection (pass a pool), a SQLite
 * database over another driver than better-sqlite3 or libSQL, or libSQL over a remote server.
 */
export function fromDrizzle<D extends object>(db: D): OrmConnection<DrizzleTransactionOf<D>> {
  if (is(db, PgTransaction) || is(db, MySqlTransaction) || is(db, SQLiteTransaction))
    throw new ConfigError(
      'db',
      'is a Drizzle transaction; pass the database, and the store opens its transactions',
    );
  const client = (db as { $client?: unknown }).$client;
  const server = SERVER_CORES.find((core) => is(db, core.database as never));
  // Drizzle runs every transaction on a lone pg Client or mysql2 Connection itself: concurrent
  // runs would interleave their statements in one transaction. A pool (or postgres-js) it is.
  if (server && isLoneConnection(client, server.poolMember))
    throw new ConfigError('db', server.lone);
  if (server)
    return drizzleConnection(db, server.dialect, ({ acquireTimeoutMs }) =>
      serverExecutor(db as unknown as Executes, server, acquireTimeoutMs),
    );
  if (!is(db, BaseSQLiteDatabase))
    throw new ConfigError('db', 'must be a Drizzle database of PostgreSQL, MySQL or SQLite');
  return drizzleConnection(db, 'sqlite', sqliteExecutorOf(db, client));
}

/**
 * The executor over a Drizzle SQLite database's driver: libSQL in memory, or better-sqlite3.
 * @throws {ConfigError} naming `db` for a remote libSQL server or another driver.
 */
function sqliteExecutorOf(
  db: object,
  client: unknown,
): (settings: { readonly acquireTimeoutMs: number }) => Executor {
  if (isLibsql(client)) {
    if (client.protocol !== 'file')
      throw new ConfigError(
        'db',
        `is a Drizzle database over a remote libSQL server (${client.protocol}); the store supports libSQL in memory only (url: ':memory:')`,
      );
    return ({ acquireTimeoutMs }) =>
      libsqlExecutor(db as unknown as RunsAsync, client, acquireTimeoutMs);
  }
  if (!isBetterSqlite(client))
    throw new ConfigError(
      'db',
      'is a Drizzle SQLite database over a driver the store does not support yet; use drizzle-orm/better-sqlite3 or drizzle-orm/libsql',
    );
  return ({ acquireTimeoutMs }) =>
    sqliteOverDrizzle(db, client as Parameters<typeof sqliteExecutor>[0], acquireTimeoutMs);
}

/** The connection of a Drizzle database, built once per database. */
function drizzleConnection<D extends object>(
  db: D,
  dialect: SqlDialect,
  executor: (settings: { readonly acquireTimeoutMs: number }) => Executor,
): OrmConnection<DrizzleTransactionOf<D>> {
  return ormConnection(db, () => ({
    kind: `Drizzle (${dialect})`,
    dialect,
    [EXECUTOR]: executor,
  }));
}
