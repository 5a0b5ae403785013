/** @module docs/stores.md and packages/sql/README.md: SqlStore over a Kysely instance. Run by test/stores-orms.test.ts. */
// #region kysely
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromKysely } from '@webhook-idempotency/sql/kysely';

/** Your schema, as you declare it for Kysely. */
interface Database {
  orders: { id: string; paid: boolean };
}
// #endregion kysely

/** One Payme delivery of transaction `tr_1`; `DATABASE_URL` names a database with an `orders` table. */
export async function kyselyExample(): Promise<{ db: Kysely<Database>; isReplay: boolean }> {
  // #region kysely
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  // A checked-out client's 'error' must have a listener, or a database restart ends the process
  pool.on('connect', (client) => client.on('error', (error) => console.error(error)));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const connection = fromKysely(db); // the store's statements go through db.executeQuery
  await Schema.createTable(connection);
  const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });

  const outcome = await guard.run(new RequestKey('payme', 'tr_1'), async ({ transaction: trx }) => {
    // trx: Kysely's Transaction<Database>, typed from the store; the receipt commits with it
    await trx!.updateTable('orders').set({ paid: true }).where('id', '=', 'ord_1').execute();
    return { result: { perform_time: Date.now() } };
  });
  console.log(outcome.isReplay); // false the first time, true for every later delivery
  // #endregion kysely
  return { db, isReplay: outcome.isReplay };
}
