/** @module `@webhook-idempotency/sql`: re-exports only. */
export { SqlStore } from './sql-store';
export { Schema } from './schema';
export { DEFAULT_TABLE, DEFAULT_ACQUIRE_TIMEOUT_MS } from './constants';
export type { SqlConnection, SqlDialect, SqlStoreOptions, SchemaOptions, TransactionOf } from './types';
