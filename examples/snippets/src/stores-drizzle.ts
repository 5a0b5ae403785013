/** @module docs/stores.md and packages/sql/README.md: SqlStore over a Drizzle database. Run by test/stores-orms.test.ts. */
// #region drizzle
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromDrizzle } from '@webhook-idempotency/sql/drizzle';

/** Your table, as you declare it for Drizzle. */
const pushes = sqliteTable('pushes', {
  delivery: text('delivery').primaryKey(),
  commits: integer('commits').notNull(),
});
// #endregion drizzle

/** One GitHub push delivery; `DATABASE_FILE` names a SQLite file with a `pushes` table. */
export async function drizzleExample(): Promise<{ client: Database.Database; isReplay: boolean }> {
  // #region drizzle
  const client = new Database(process.env.DATABASE_FILE ?? 'app.db');
  client.pragma('journal_mode = WAL');
  const db = drizzle(client);
  const connection = fromDrizzle(db);
  await Schema.createTable(connection);
  const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });

  const delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958'; // the X-GitHub-Delivery header
  const outcome = await guard.run(
    new RequestKey('github', delivery),
    async ({ transaction: tx }) => {
      // tx: over better-sqlite3, the Drizzle database itself inside the store's BEGIN IMMEDIATE
      tx!.insert(pushes).values({ delivery, commits: 3 }).run();
      return 'ok';
    },
  );
  // #endregion drizzle
  return { client, isReplay: outcome.isReplay };
}
