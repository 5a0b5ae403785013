/**
 * @module Fresh databases for the store snippets: the SQL store tests' helpers (per-file databases
 * on the servers jest's global setup started, temporary SQLite files), shared rather than copied.
 */
export {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
