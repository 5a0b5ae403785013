/** @module Recognises the connection the user passed and builds the matching executor. */
import { isKnex, knexExecutor } from './knex';
import { isMysqlCallbackPool, isMysqlPromisePool, mysqlExecutor } from './mysql';
import { isPgPool, pgExecutor } from './pg';
import {
  bunSqliteExecutor,
  isBetterSqlite,
  isBunSqlite,
  isNodeSqlite,
  nodeSqliteExecutor,
  sqliteExecutor,
} from './sqlite';
import { ConfigError } from '@webhook-idempotency/core';
import { positiveAmount } from '@webhook-idempotency/core/adapter';
import { DEFAULT_ACQUIRE_TIMEOUT_MS } from './constants';
import { dialects } from '../dialects';
import type { Executor } from './executor';
import { EXECUTOR, isOrmConnection } from './orm';
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
  const acquireMs = positiveAmount('acquireTimeoutMs', acquireTimeoutMs, 'milliseconds');
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
  const executor = createExecutor(db as never, acquireMs, preparedStatements);
  return retryDeadlocks(executor, dialects[executor.dialect]);
}
