/**
 * @module Executor over a `better-sqlite3` Database: one synchronous connection, so statements of
 * the store queue behind an open transaction (a mutex) instead of silently joining it.
 * Transactions start with `BEGIN IMMEDIATE`: other processes wait on the busy timeout
 * (better-sqlite3's `timeout`, 5 s by default) rather than fail at their first write.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import type { Executor, QueryResult } from '../executor';
import { Mutex } from '../mutex';

/** True for a `better-sqlite3` Database. */
export function isBetterSqlite(db: unknown): db is BetterSqlite3.Database {
  const candidate = db as Partial<BetterSqlite3.Database> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.prepare === 'function' &&
    typeof candidate.pragma === 'function' &&
    typeof candidate.exec === 'function'
  );
}

/** What every executor on one Database shares: several stores on one handle still take turns. */
interface Shared {
  readonly mutex: Mutex;
  // Marks the async context of an open transaction: a statement issued from inside it (without
  // passing the handle) runs at once instead of waiting for the mutex it holds (a deadlock).
  readonly inTransaction: AsyncLocalStorage<{ open: boolean }>;
  readonly statements: Map<string, BetterSqlite3.Statement>;
}

const shared = new WeakMap<BetterSqlite3.Database, Shared>();

/** An executor over `db`. */
export function sqliteExecutor(db: BetterSqlite3.Database): Executor {
  let state = shared.get(db);
  if (!state) {
    state = { mutex: new Mutex(), inTransaction: new AsyncLocalStorage(), statements: new Map() };
    shared.set(db, state);
  }
  const { mutex, inTransaction, statements } = state;

  const run = (sql: string, params: readonly unknown[]): QueryResult => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    if (statement.reader) {
      const rows = statement.all(...params) as Record<string, unknown>[];
      return { rows, affected: rows.length };
    }
    return { rows: [], affected: statement.run(...params).changes };
  };

  return {
    dialect: 'sqlite',
    async query(sql, params, transaction) {
      if (transaction !== undefined || inTransaction.getStore()?.open) return run(sql, params);
      return mutex.run(() => run(sql, params));
    },
    transaction(work) {
      return mutex.run(() => {
        const marker = { open: true };
        return inTransaction.run(marker, async () => {
          db.exec('BEGIN IMMEDIATE');
          try {
            const result = await work(db);
            db.exec('COMMIT');
            return result;
          } catch (error) {
            if (db.inTransaction) db.exec('ROLLBACK');
            throw error;
          } finally {
            // Work the handler left running must not bypass the mutex once the transaction is over.
            marker.open = false;
          }
        });
      });
    },
  };
}
