/** @module docs/stores.md and packages/sql/README.md: SqlStore over a `mysql2` pool. Run by test/stores.test.ts. */
// #region mysql2
import mysql from 'mysql2/promise'; // or: import mysql from 'mysql2' (callback API)
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion mysql2

/** One delivery; `DATABASE_URL` names a MySQL/MariaDB database with a `builds` table. */
export async function mysqlExample(): Promise<{ pool: mysql.Pool; response: string }> {
  // #region mysql2
  const pool = mysql.createPool({ uri: process.env.DATABASE_URL });
  await Schema.createTable(pool);
  const guard = new IdempotencyGuard(new SqlStore(pool), { transactional: true });

  const deliveryId = '72d3162e-cc78-11e3-81ab-4c9367dc0958'; // X-GitHub-Delivery
  const outcome = await guard.run(new RequestKey('github', deliveryId), async ({ transaction }) => {
    // transaction: a PoolConnection (of the API your pool uses) inside START TRANSACTION
    await transaction!.query('INSERT INTO builds (sha) VALUES (?)', ['9f2c1e0']);
    return 'queued';
  });
  // #endregion mysql2
  return { pool, response: outcome.response };
}
