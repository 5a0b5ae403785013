/**
 * @module How the outbox storm's child processes reach the database: the plain driver of each
 * dialect (a pg Pool, a mysql2 pool, a better-sqlite3 file in WAL mode), the receipts store and
 * the outbox store on that one connection, and the business row's insert through a run's
 * transaction handle.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { Store } from '@webhook-idempotency/core';
import { type SqlConnection, type SqlDialect, SqlOutbox, SqlStore } from '@webhook-idempotency/sql';

/** The business write: one row (event id, token, pid) through the run's transaction. */
export type InsertEffect = (transaction: unknown, id: string, token: string) => Promise<void>;

/** One process's stores over one connection. */
export interface OutboxStormStores {
  /** The receipts store (transactional). */
  readonly store: Store<unknown>;
  /** The outbox table's store, linked to `store` (records in its transactions, leases for the dispatcher). */
  readonly outbox: SqlOutbox<unknown>;
  readonly insert: InsertEffect;
}

/** Connects to the database of `settings`; `label` prefixes the pool's error lines on stderr. */
export function connectStores(
  settings: {
    readonly dialect: SqlDialect;
    readonly url: string;
    readonly poolSize: number;
    readonly effects?: string;
  },
  label: string,
): OutboxStormStores {
  const sql = `INSERT INTO ${settings.effects ?? 'storm_effects'} (event_id, token, pid) VALUES (?, ?, ?)`;
  // The stores' transaction handle differs per driver; the handler treats it as opaque (`insert` casts it).
  const linked = (db: SqlConnection, receipts: SqlStore) => {
    const store = receipts as unknown as Store<unknown>;
    return { store, outbox: new SqlOutbox<unknown>(db, { receipts: store }) };
  };
  if (settings.dialect === 'postgres') {
    const pool = new pg.Pool({
      connectionString: settings.url,
      max: settings.poolSize,
      connectionTimeoutMillis: 5_000,
    });
    // What pg's docs tell every application: an idle client's error (the server killed) is logged, not thrown.
    pool.on('error', (error) =>
      process.stderr.write(`[${label} ${process.pid}] idle pg client error: ${error.message}\n`),
    );
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    return {
      ...linked(pool, new SqlStore(pool)),
      insert: async (transaction, id, token) =>
        void (await (transaction as pg.PoolClient).query(text, [id, token, process.pid])),
    };
  }
  if (settings.dialect === 'mysql') {
    const pool = mysql.createPool({
      uri: settings.url,
      connectionLimit: settings.poolSize,
      connectTimeout: 5_000,
    });
    return {
      ...linked(pool, new SqlStore(pool)),
      insert: async (transaction, id, token) =>
        void (await (transaction as mysql.PoolConnection).query(sql, [id, token, process.pid])),
    };
  }
  const db = new Database(settings.url, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  return {
    ...linked(db, new SqlStore(db)),
    // The store's Database inside BEGIN IMMEDIATE (a guarded view of it, dead once the transaction ends).
    insert: async (transaction, id, token) =>
      void (transaction as Database.Database).prepare(sql).run(id, token, process.pid),
  };
}
