/** @module Recognises the connection the user passed and builds the matching executor. */
import { isKnex, knexExecutor } from './drivers/knex';
import { isMysqlCallbackPool, isMysqlPromisePool, mysqlExecutor } from './drivers/mysql';
import { isPgPool, pgExecutor } from './drivers/pg';
import {
  bunSqliteExecutor,
  isBetterSqlite,
  isBunSqlite,
  isNodeSqlite,
  nodeSqliteExecutor,
  sqliteExecutor,
} from './drivers/sqlite';
import { ConfigError } from '@webhook-idempotency/core';
import type { InboxCaution } from '@webhook-idempotency/core/inbox';
import { DEFAULT_ACQUIRE_TIMEOUT_MS } from './constants';
import { dialects } from './dialects';
import type { Executor } from './executor';
import { EXECUTOR, identityOf, isOrmConnection } from './orm';
import { retryDeadlocks } from './retry';

function describe(db: unknown): string {
  if (db === null) return 'null';
  if (typeof db !== 'object' && typeof db !== 'function') return typeof db;
  return (db as { constructor?: { name?: string } }).constructor?.name ?? typeof db;
}

/**
 * Detects the kind of `db` (knex instance, pg Pool, mysql2 pool, better-sqlite3 Database,
 * node:sqlite DatabaseSync, bun:sqlite Database, or a connection an ORM entry point made: `fromKysely`, `fromDrizzle`,
 * `fromPrisma`, `fromPostgres`).
 * `preparedStatements`: see `SqlStoreOptions.preparedStatements`.
 *
 * @throws {ConfigError} naming `db` for anything else, and what was passed.
 */
export function createExecutor(
  db: unknown,
  acquireTimeoutMs: number,
  preparedStatements = true,
): Executor {
  if (isOrmConnection(db)) return db[EXECUTOR]({ acquireTimeoutMs, preparedStatements });
  if (isKnex(db)) return knexExecutor(db);
  if (isBetterSqlite(db)) return sqliteExecutor(db, acquireTimeoutMs);
  if (isNodeSqlite(db)) return nodeSqliteExecutor(db, acquireTimeoutMs);
  if (isBunSqlite(db)) return bunSqliteExecutor(db, acquireTimeoutMs);
  if (isPgPool(db)) return pgExecutor(db, acquireTimeoutMs, preparedStatements);
  if (isMysqlPromisePool(db) || isMysqlCallbackPool(db))
    return mysqlExecutor(db, acquireTimeoutMs, preparedStatements);
  throw new ConfigError(
    'db',
    `must be a knex instance, a pg Pool, a mysql2 pool (promise or callback API), a better-sqlite3 Database, a node:sqlite DatabaseSync, a bun:sqlite Database, or an ORM made into a connection (fromKysely, fromDrizzle, fromPrisma, fromPostgres); got ${describe(db)}` +
      ' (a single pg Client or mysql2 Connection cannot run concurrent transactions: pass a pool)',
  );
}

/**
 * The executor `SqlStore` and `SqlInbox` open from their shared options, checked first. Their
 * single statements run again on a deadlock ({@link retryDeadlocks}).
 * @throws {ConfigError} naming `acquireTimeoutMs` (not a positive number) or `preparedStatements`
 * (not a boolean), or `db` when it is no supported connection or a knex transaction.
 */
export function executorFor(
  db: unknown,
  options: { readonly acquireTimeoutMs?: unknown; readonly preparedStatements?: unknown },
): Executor {
  const { acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS, preparedStatements = true } = options;
  if (
    typeof acquireTimeoutMs !== 'number' ||
    !Number.isFinite(acquireTimeoutMs) ||
    acquireTimeoutMs <= 0
  )
    throw new ConfigError(
      'acquireTimeoutMs',
      `must be a positive number of milliseconds, got ${String(acquireTimeoutMs)}`,
    );
  if (typeof preparedStatements !== 'boolean')
    throw new ConfigError('preparedStatements', 'must be a boolean');
  // A claim made in the caller's transaction is invisible to every other connection until it
  // commits (so a concurrent delivery claims too) and gone if it rolls back. `Schema` takes one
  // (a knex migration runs in a transaction); the stores do not.
  if (isKnex(db) && (db as { isTransaction?: boolean }).isTransaction === true)
    throw new ConfigError(
      'db',
      'is a knex transaction: the receipts would live in it, unseen by other connections and gone on its rollback; pass the knex instance, and the store opens its own transactions',
    );
  const executor = createExecutor(db as never, acquireTimeoutMs, preparedStatements);
  return retryDeadlocks(executor, dialects[executor.dialect]);
}

/** The connection each store and inbox was built on, for {@link sameConnection}. */
const connections = new WeakMap<object, unknown>();
/** The driver's handle under it, where an ORM shows it (a Drizzle database's `$client`). */
const handles = new WeakMap<object, unknown>();

/** Records that `owner` (a `SqlStore`, a `SqlInbox`) runs its statements on `db`. */
export function rememberConnection(owner: object, db: unknown): void {
  const identity = identityOf(db);
  const client = (identity as { $client?: unknown } | null)?.$client;
  connections.set(owner, identity);
  handles.set(owner, typeof client === 'object' && client !== null ? client : identity);
}

/**
 * True when `a` and `b` were built on the very same connection object (one pool, one knex, one
 * SQLite handle): a transaction one opens is a place where the other's statements can run. Two
 * pools to the same database are not recognised as one (their connections never share a
 * transaction).
 */
export function sameConnection(a: object, b: object): boolean {
  const db = connections.get(a);
  return db !== undefined && db === connections.get(b);
}

/** What {@link sharedSqlite} reports: the endpoint's writes queue behind the handlers' transactions. */
export const SQLITE_SHARED_CONNECTION = 'SQLITE_SHARED_CONNECTION';

/**
 * An inbox on SQLite and a receipts store on its very connection (one better-sqlite3 or
 * node:sqlite handle, one knex, one ORM connection, or a Drizzle database and the handle under
 * it): SQLite has one writer per file, and a transactional handler holds it from its first write
 * to its commit, so the endpoint's `INSERT` (the provider's acknowledgement) waits for the slowest
 * handler. It runs, and batches; with slow handlers a provider times out. The fix: the deliveries
 * in a file of their own.
 */
export function sharedSqlite(
  inbox: { readonly dialect: string },
  store: object,
): readonly InboxCaution[] {
  const handle = handles.get(inbox);
  if (inbox.dialect !== 'sqlite' || handle === undefined || handle !== handles.get(store))
    return [];
  return [
    {
      code: SQLITE_SHARED_CONNECTION,
      message:
        "SqlInbox and the receipts store share one SQLite connection: a handler’s transaction holds the database’s only write lock until it commits, so the endpoint’s INSERT (the provider’s acknowledgement) waits for the handlers running at that moment, and a provider that gives up after a few seconds (GitHub: 10 s) redelivers. Give the deliveries a database file of their own, on a connection of their own (new SqlInbox(new Database('deliveries.db')), or a knex instance on that file), the receipts staying beside your tables (docs/inbox.md, “SQLite: the inbox in a file of its own”).",
    },
  ];
}
