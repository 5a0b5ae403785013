/**
 * `SqlStore` and `Schema` for PostgreSQL, MySQL/MariaDB and SQLite, over knex, `pg`, `mysql2`,
 * `better-sqlite3`, Node's built-in `node:sqlite` or Bun's `bun:sqlite` (and Kysely, Drizzle, Prisma and postgres-js
 * through the `/kysely`, `/drizzle`, `/prisma` and `/postgres` entry points); `ReceiptsAdmin` to operate the receipts table;
 * `SqlInbox` and `InboxSchema` for inbox mode; the operator's inbox repairs (`retryDelivery`,
 * `redeliverDelivery`, `retryDeadDeliveries`) over any inbox store.
 * @module @webhook-idempotency/sql
 */
export { SqlStore } from './sql-store';
export { Schema } from './schema';
export { ReceiptsAdmin } from './receipts-admin';
export { SqlInbox } from './inbox-store';
export { InboxSchema } from './inbox-schema';
export {
  type ForgetsReceipts,
  type LeftAsItIs,
  movedSince,
  type RedeliverOutcome,
  type RetryDeadOptions,
  type RetryDeadResult,
  type RetryOutcome,
  type SeenOption,
  redeliverDelivery,
  retryDeadDeliveries,
  retryDelivery,
} from './inbox-operations';
export { DEFAULT_TABLE, DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_INBOX_TABLE } from './constants';
export type {
  BetterSqlite3Database,
  BunSqliteDatabase,
  BunSqliteStatement,
  KnexInstance,
  MysqlCallbackPool,
  MysqlPromisePool,
  NodeSqliteDatabase,
  NodeSqliteStatement,
  PgPool,
  SqlConnection,
  SqlDialect,
  SqlStoreOptions,
  SchemaOptions,
  TransactionOf,
} from './types';
export type { OrmConnection } from './orm';
export type * from './admin-types';
export type { GroupCommitOptions, InboxSchemaOptions, SqlInboxOptions } from './inbox-types';
