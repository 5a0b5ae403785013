/** @module docs/stores.md and packages/sql/README.md: SqlStore over a knex instance. Run by test/stores.test.ts. */
// #region knex
import knex from 'knex';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion knex
import type { Knex } from 'knex';

/** One Payme PerformTransaction; `DATABASE_URL` names a PostgreSQL database with a `payments` table. */
export async function knexExample(): Promise<{ db: Knex; isReplay: boolean }> {
  // #region knex
  const db = knex({ client: 'pg', connection: process.env.DATABASE_URL }); // or mysql2, better-sqlite3
  await Schema.createTable(db);
  const guard = new IdempotencyGuard(new SqlStore(db, { table: 'webhook_receipts' }), {
    transactional: true,
  });

  const { method, params } = {
    method: 'PerformTransaction',
    params: { id: '5305e3bab097f420a62ced0b', amount: 500000 },
  };
  const outcome = await guard.run(
    new RequestKey('payme', `${method}:${params.id}`),
    async ({ transaction }) => {
      // transaction: Knex.Transaction
      await transaction!('payments').insert({ id: params.id, amount: params.amount });
      return { result: { state: 2 } };
    },
  );
  // #endregion knex
  return { db, isReplay: outcome.isReplay };
}
