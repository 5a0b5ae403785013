/**
 * `fromPostgres(sql)`: `SqlStore` and `SqlInbox` over the application's postgres-js (`postgres`)
 * `sql` instance. A transactional handler gets the `sql` of the transaction (`TransactionSql`):
 * what it writes through it and the receipt commit or roll back together.
 * @module @webhook-idempotency/sql/postgres
 */
export { fromPostgres } from './connections/postgres-js';
export type { OrmConnection } from './connections/orm';
