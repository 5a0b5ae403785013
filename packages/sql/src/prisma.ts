/**
 * `fromPrisma(prisma)`: `SqlStore` and `SqlInbox` over the application's Prisma 7 client and its
 * driver adapter (`@prisma/adapter-pg`, `@prisma/adapter-mariadb`, `@prisma/adapter-better-sqlite3`).
 * A transactional handler gets Prisma's interactive-transaction client: what it writes through
 * it and the receipt commit or roll back together.
 * @module @webhook-idempotency/sql/prisma
 */
export { fromPrisma } from './connections/prisma';
export type { OrmConnection } from './connections/orm';
export type { PrismaTransactionOf } from './connections/prisma';
