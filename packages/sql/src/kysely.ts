/**
 * `fromKysely(db)`: `SqlStore` and `SqlInbox` over the application's Kysely instance, its
 * PostgreSQL, MySQL and SQLite dialects. A transactional handler gets Kysely's own
 * `Transaction<DB>`: what it writes through it and the receipt commit or roll back together.
 * @module @webhook-idempotency/sql/kysely
 */
export { fromKysely } from './connections/kysely';
export type { OrmConnection } from './connections/orm';
