/** @module docs/stores.md and packages/sql/README.md: SqlStore over a `pg` Pool. Run by test/stores.test.ts. */
// #region pg
import pg from 'pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion pg

/** One delivery of `evt_1`; `DATABASE_URL` names a database with an `orders` table. */
export async function pgExample(): Promise<{ pool: pg.Pool; isReplay: boolean }> {
  // #region pg
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await Schema.createTable(pool);
  const guard = new IdempotencyGuard(new SqlStore(pool), { transactional: true });

  const outcome = await guard.run(new RequestKey('stripe', 'evt_1'), async ({ transaction }) => {
    // transaction: pg.PoolClient inside BEGIN
    await transaction!.query('UPDATE orders SET paid = true WHERE id = $1', ['ord_1']);
    return { received: true };
  });
  console.log(outcome.isReplay); // false the first time, true for every later delivery
  // #endregion pg
  return { pool, isReplay: outcome.isReplay };
}
