/**
 * @module The benchmarks' business write, shared by the inbox section's server (inbox-server.ts)
 * and the scaling section's worker processes (inbox-scale-worker.ts): a database opened from a
 * `<database>` argument, and the booking (one INSERT into the business table) made in the
 * transaction the receipts store opened.
 */
import type { RunContext } from '@webhook-idempotency/core';
import type { InboxHandler } from '@webhook-idempotency/core/inbox';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { EFFECTS_TABLE } from './inbox-paths';

/** What every benchmark route and handler answers. */
export const ANSWER = { received: true };

/** A benchmark program's connection, its booking write, and how to close it. */
export interface BenchDatabase {
  readonly db: Database.Database | mysql.Pool | pg.Pool;
  /** Books `event` in `transaction` (the receipt's). */
  book(transaction: unknown, event: string): unknown;
  close(): unknown;
}

/**
 * Opens `database`: `sqlite:<file>` (one connection, WAL, `synchronous=NORMAL`), a `mysql://` or
 * a `postgres://` URL (pools of 10, pg's default).
 */
export function openBenchDatabase(database: string): BenchDatabase {
  if (database.startsWith('sqlite:')) {
    const db = new Database(database.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // One connection: the statement runs on it inside the transaction the store opened.
    const insert = db.prepare(`INSERT INTO ${EFFECTS_TABLE} (event) VALUES (?)`);
    return { db, book: (_tx, event) => insert.run(event), close: () => db.close() };
  }
  if (database.startsWith('mysql:')) {
    const db = mysql.createPool({ uri: database, connectionLimit: 10 });
    const book = (tx: unknown, event: string) =>
      (tx as mysql.PoolConnection).execute(`INSERT INTO ${EFFECTS_TABLE} (event) VALUES (?)`, [
        event,
      ]);
    return { db, book, close: () => db.end() };
  }
  const db = new pg.Pool({ connectionString: database, max: 10 });
  const book = (tx: unknown, event: string) =>
    (tx as pg.PoolClient).query({
      name: 'bench_book',
      text: `INSERT INTO ${EFFECTS_TABLE} (event) VALUES ($1)`,
      values: [event],
    });
  return { db, book, close: () => db.end() };
}

/** The worker's handler: a `payment.succeeded` delivery is booked in the receipt's transaction. */
export function bookingHandler(book: BenchDatabase['book']): InboxHandler<unknown> {
  return async function bookDelivery(delivery, { transaction }: RunContext<unknown>) {
    const event = JSON.parse(delivery.body.toString('utf8')) as { type: string };
    if (event.type === 'payment.succeeded') await book(transaction, delivery.externalId);
    return ANSWER;
  };
}
