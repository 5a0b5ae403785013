/**
 * `SqlStore` and `Schema` for PostgreSQL, MySQL/MariaDB and SQLite, over knex, `pg`, `mysql2`
 * or `better-sqlite3`; `SqlInbox` and `InboxSchema` for inbox mode.
 * @module @webhook-idempotency/sql
 */
export { SqlStore } from './sql-store';
export { Schema } from './schema';
export { SqlInbox } from './inbox-store';
export { InboxSchema } from './inbox-schema';
export { DEFAULT_TABLE, DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_INBOX_TABLE } from './constants';
export type {
  SqlConnection,
  SqlDialect,
  SqlStoreOptions,
  SchemaOptions,
  TransactionOf,
} from './types';
export type { InboxSchemaOptions, SqlInboxOptions } from './inbox-types';
