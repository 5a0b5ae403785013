/**
 * `SqlStore` and `Schema` for PostgreSQL, MySQL/MariaDB and SQLite, over knex, `pg`, `mysql2`,
 * `better-sqlite3` or Node's built-in `node:sqlite`.
 * @module @webhook-idempotency/sql
 */
export { SqlStore } from './sql-store';
export { Schema } from './schema';
export { DEFAULT_TABLE, DEFAULT_ACQUIRE_TIMEOUT_MS } from './constants';
export type {
  NodeSqliteDatabase,
  NodeSqliteStatement,
  SqlConnection,
  SqlDialect,
  SqlStoreOptions,
  SchemaOptions,
  TransactionOf,
} from './types';
