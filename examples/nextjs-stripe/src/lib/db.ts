/**
 * @module The example's database: one better-sqlite3 connection per server process, on the file
 * `DATABASE_FILE` names (default `stripe-webhooks.sqlite`), shared by the receipts and the payments.
 */
import { Schema } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';

let db: Database.Database | undefined;

/** The process's connection, opened on first use (Next.js loads a route module once per server). */
export function database(): Database.Database {
  if (!db) {
    db = new Database(process.env.DATABASE_FILE ?? 'stripe-webhooks.sqlite');
    db.pragma('journal_mode = WAL');
  }
  return db;
}

/** Creates the receipts table and the example's `payments` table; safe to run again. Run before `next start`. */
export async function migrate(connection: Database.Database = database()): Promise<void> {
  await Schema.createTable(connection);
  connection.exec(
    `CREATE TABLE IF NOT EXISTS payments (
      payment_intent TEXT PRIMARY KEY,
      amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      event_id TEXT NOT NULL
    )`,
  );
}
