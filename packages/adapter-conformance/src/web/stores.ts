/**
 * @module The stores the Web suite runs on inside a runtime: a SQLite file through the runtime's
 * own driver (`bun:sqlite`, `node:sqlite`), and PostgreSQL through `pg`, on the server the jest run
 * started. One connection of each kind serves the run; every test starts on empty tables (the
 * receipts and the ignored events' counts).
 */
import type { Store } from '@webhook-idempotency/core';
import { Schema, type SqlConnection, SqlStore } from '@webhook-idempotency/sql';
import pg from 'pg';
import type { StoreKind } from '../stores';

/** A SQLite handle the runtime's driver opened: a connection the store accepts, that can run a pragma. */
type SqliteHandle = SqlConnection & { exec(sql: string): unknown };

/**
 * A SQLite file (WAL) opened with `open` at `file` for the whole run, the table emptied before
 * each test: a fresh file per test costs several fsyncs (tens of milliseconds), a `DELETE` one.
 * The file lives as long as its folder (the jest run's project).
 */
export function sqliteStoreKind(
  name: string,
  file: string,
  open: (file: string) => SqliteHandle,
): StoreKind {
  let db: SqliteHandle | undefined;
  return {
    name,
    async open() {
      if (!db) {
        db = open(file);
        db.exec('PRAGMA journal_mode = WAL');
        await Schema.createTable(db);
      }
      db.exec('DELETE FROM webhook_receipts');
      db.exec('DELETE FROM webhook_receipts_ignored');
      return { store: new SqlStore(db) as Store<unknown>, close: async () => undefined };
    },
  };
}

/**
 * PostgreSQL at `url` (a database of its own, which the jest file created): one pool for the
 * whole run, the table emptied before each test. A missing URL fails every test, never skips one.
 */
export function pgStoreKind(url: string | undefined): StoreKind {
  let pool: pg.Pool | undefined;
  const table = 'webhook_receipts';
  return {
    name: 'pg',
    async open() {
      if (!url) throw new Error('WI_RUNTIME_PG_URL is not set: the jest file passes its database');
      if (!pool) {
        // allowExitOnIdle: the runner ends when the tests do, without a hook to end the pool.
        pool = new pg.Pool({ connectionString: url, allowExitOnIdle: true });
        await Schema.createTable(pool, { table });
      }
      await pool.query(`TRUNCATE ${table}, ${table}_ignored`);
      return {
        store: new SqlStore(pool, { table }) as Store<unknown>,
        close: async () => undefined,
      };
    },
  };
}
