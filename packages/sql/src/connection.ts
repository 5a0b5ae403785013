/** @module Recognises the connection the user passed and builds the matching executor. */
import { isKnex, knexExecutor } from './drivers/knex';
import { isMysqlCallbackPool, isMysqlPromisePool, mysqlExecutor } from './drivers/mysql';
import { isPgPool, pgExecutor } from './drivers/pg';
import { isBetterSqlite, isNodeSqlite, nodeSqliteExecutor, sqliteExecutor } from './drivers/sqlite';
import type { Executor } from './executor';

function describe(db: unknown): string {
  if (db === null) return 'null';
  if (typeof db !== 'object' && typeof db !== 'function') return typeof db;
  return (db as { constructor?: { name?: string } }).constructor?.name ?? typeof db;
}

/**
 * Detects the kind of `db` (knex instance, pg Pool, mysql2 pool, better-sqlite3 Database,
 * node:sqlite DatabaseSync).
 * `preparedStatements`: see `SqlStoreOptions.preparedStatements`.
 *
 * @throws {TypeError} for anything else, naming what was passed.
 */
export function createExecutor(
  db: unknown,
  acquireTimeoutMs: number,
  preparedStatements = true,
): Executor {
  if (isKnex(db)) return knexExecutor(db);
  if (isBetterSqlite(db)) return sqliteExecutor(db, acquireTimeoutMs);
  if (isNodeSqlite(db)) return nodeSqliteExecutor(db, acquireTimeoutMs);
  if (isPgPool(db)) return pgExecutor(db, acquireTimeoutMs, preparedStatements);
  if (isMysqlPromisePool(db) || isMysqlCallbackPool(db))
    return mysqlExecutor(db, acquireTimeoutMs, preparedStatements);
  throw new TypeError(
    `SqlStore: "db" must be a knex instance, a pg Pool, a mysql2 pool (promise or callback API), a better-sqlite3 Database or a node:sqlite DatabaseSync; got ${describe(db)}` +
      ' (a single pg Client or mysql2 Connection cannot run concurrent transactions: pass a pool)',
  );
}
