/**
 * `fromDrizzle(db)`: `SqlStore` and `SqlInbox` over the application's Drizzle database: node-postgres
 * or postgres-js for PostgreSQL, mysql2 for MySQL/MariaDB, better-sqlite3 for SQLite (libSQL in
 * memory; a libSQL file is refused, see drizzle-libsql.ts). A
 * transactional handler gets Drizzle's own `tx`: what it writes through it and the receipt commit
 * or roll back together.
 * @module @webhook-idempotency/sql/drizzle
 */
export { fromDrizzle } from './connections/drizzle';
export type { OrmConnection } from './connections/orm';
export type { DrizzleTransactionOf } from './connections/drizzle';
