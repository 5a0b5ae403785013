/**
 * `SqlStore` and `Schema` for PostgreSQL, MySQL/MariaDB and SQLite, over knex, `pg`, `mysql2`,
 * `better-sqlite3`, Node's built-in `node:sqlite` or Bun's `bun:sqlite` (and Kysely, Drizzle, Prisma and postgres-js
 * through the `/kysely`, `/drizzle`, `/prisma` and `/postgres` entry points; D1 through `/d1`); `ReceiptsAdmin` to operate the receipts table;
 * `SqlInbox` and `InboxSchema` for inbox mode; `SqlOutbox` and `OutboxSchema` for the transactional
 * outbox. The operator's inbox repairs (`retryDelivery`,
 * `redeliverDelivery`, `retryDeadDeliveries`) are core's (`@webhook-idempotency/core/operations`),
 * re-exported here for one more minor version.
 * @module @webhook-idempotency/sql
 */
export { SqlStore } from './receipts/sql-store';
export { Schema } from './receipts/schema';
export { ReceiptsAdmin } from './admin/receipts-admin';
export { SqlInbox } from './inbox/sql-inbox';
export { InboxSchema } from './inbox/schema';
export { SqlOutbox } from './outbox/sql-outbox';
export { OutboxSchema } from './outbox/schema';
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
} from './inbox/operations';
export { DEFAULT_ACQUIRE_TIMEOUT_MS } from './connections/constants';
export { DEFAULT_TABLE } from './receipts/table-name';
export { DEFAULT_INBOX_TABLE } from './inbox/schema';
export { DEFAULT_OUTBOX_TABLE } from './outbox/schema';
export type * from './connections/types';
export type { SchemaOptions, SqlStoreOptions } from './receipts/types';
export type { OrmConnection } from './connections/orm';
export type * from './admin/types';
export type { GroupCommitOptions, InboxSchemaOptions, SqlInboxOptions } from './inbox/types';
export type { OutboxSchemaOptions, SqlOutboxOptions } from './outbox/types';
