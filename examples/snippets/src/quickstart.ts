/**
 * @module The quickstart's store (docs/quickstart.md, step 2): the receipts table in a SQLite
 * file. quickstart-{express,fastify,koa}.ts guard the same GitHub webhook with it, and
 * test/quickstart.test.ts delivers to each app twice.
 */
// #region store
import Database from 'better-sqlite3';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion store

/** Step 2: the receipts table in a SQLite file, and the store over it. */
export async function createStore(): Promise<{
  db: Database.Database;
  store: SqlStore<Database.Database>;
}> {
  // #region store
  const db = new Database(process.env.DATABASE_FILE ?? 'webhooks.db');
  await Schema.createTable(db); // CREATE TABLE IF NOT EXISTS webhook_receipts …
  const store = new SqlStore(db);
  // #endregion store
  return { db, store };
}

/** The store of the quickstart. */
export type QuickstartStore = SqlStore<Database.Database>;
