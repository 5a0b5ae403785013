/** @module The stores every adapter runs the suite on (memory, SQLite file), plus a store that is down. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore, type Store } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';

/** A fresh, empty store and how to release it. */
export interface OpenedStore {
  readonly store: Store<unknown>;
  close(): Promise<void>;
}

/** One kind of store the suite runs on. */
export interface StoreKind {
  readonly name: string;
  open(): Promise<OpenedStore>;
}

/** The registry: every adapter entry runs the whole suite on each of these. */
export const storeKinds: readonly StoreKind[] = [
  {
    name: 'memory',
    async open() {
      return { store: new InMemoryStore() as Store<unknown>, close: async () => undefined };
    },
  },
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'wi-adapter-'));
      const db = new Database(join(dir, 'receipts.db'));
      db.pragma('journal_mode = WAL');
      await Schema.createTable(db);
      return {
        store: new SqlStore(db) as Store<unknown>,
        async close() {
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

/** A store whose every method rejects, as when the database is unreachable. */
export function unreachableStore(): Store<unknown> {
  const down = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
  return {
    capabilities: {
      crossProcess: true,
      transactional: false,
      clock: 'store',
      ignoredCounts: false,
    },
    claim: down,
    reclaim: down,
    complete: down,
    fail: down,
    find: down,
    purge: down,
  };
}
