/** @module docs/stores.md and packages/sql/README.md: SqlStore over postgres-js. Run by test/stores-orms.test.ts. */
// #region postgres
import postgres from 'postgres';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromPostgres } from '@webhook-idempotency/sql/postgres';
// #endregion postgres

/** One Stripe event; `DATABASE_URL` names a database with an `orders` table. */
export async function postgresExample(): Promise<{ sql: postgres.Sql; isReplay: boolean }> {
  // #region postgres
  const sql = postgres(process.env.DATABASE_URL!);
  const connection = fromPostgres(sql);
  await Schema.createTable(connection);
  const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });

  const outcome = await guard.run(
    new RequestKey('stripe', 'evt_1'),
    async ({ transaction: tx }) => {
      // tx: the sql of a sql.begin transaction, typed from the store
      await tx!`UPDATE orders SET paid = true WHERE id = ${'ord_1'}`;
      return { received: true };
    },
  );
  // #endregion postgres
  return { sql, isReplay: outcome.isReplay };
}
