/**
 * @module Executor over a synchronous SQLite connection, a `better-sqlite3` Database, Node's
 * own `node:sqlite` `DatabaseSync` or Bun's `bun:sqlite` `Database`: one connection, so statements
 * of the store queue behind an open transaction (a mutex) instead of silently joining it.
 * Transactions start with `BEGIN IMMEDIATE`: other processes wait on the busy timeout
 * (better-sqlite3's `timeout`, 5 s by default; `node:sqlite`'s `timeout` option and bun:sqlite's
 * `PRAGMA busy_timeout`, 0 by default) rather than fail at their first write.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import { TransactionClosed } from '@webhook-idempotency/core';
import { gate, untilAborted, type Executor, type Gate, type QueryResult } from './executor';
import { Mutex } from './mutex';
import { madeOnce } from './once';
import type {
  BunSqliteDatabase,
  BunSqliteStatement,
  NodeSqliteDatabase,
  NodeSqliteStatement,
} from './types';
import { hasMethods } from './shape';

/** True for a `better-sqlite3` Database. */
export function isBetterSqlite(db: unknown): db is BetterSqlite3.Database {
  return hasMethods(db, 'prepare', 'pragma', 'exec');
}

/** True for a `node:sqlite` `DatabaseSync` (Node ≥ 22.16: `isTransaction` and `columns()`). */
export function isNodeSqlite(db: unknown): db is NodeSqliteDatabase {
  return hasMethods(db, 'prepare', 'exec') && !hasMethods(db, 'pragma') && 'isTransaction' in db;
}

/**
 * True for a `bun:sqlite` `Database`: `query` (its cached statements) and `inTransaction`, and
 * neither better-sqlite3's `pragma` nor node:sqlite's `isTransaction`.
 */
export function isBunSqlite(db: unknown): db is BunSqliteDatabase {
  return (
    hasMethods(db, 'prepare', 'exec', 'query') &&
    !hasMethods(db, 'pragma') &&
    !('isTransaction' in db) &&
    'inTransaction' in db
  );
}

/** What the drivers' connections have in common. */
interface SyncDatabase {
  exec(sql: string): unknown;
}

/** One prepared statement and what the executor needs to know of it. */
interface Prepared<Statement> {
  readonly statement: Statement;
  /** It returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  /** It changes nothing (so it may run while a transaction holds the connection). */
  readonly readonly: boolean;
}

/** How one synchronous driver prepares, runs and reports: the only part that differs. */
interface SyncDriver<Db extends SyncDatabase, Statement extends object> {
  prepare(db: Db, sql: string): Prepared<Statement>;
  all(statement: Statement, params: readonly unknown[]): Record<string, unknown>[];
  changes(statement: Statement, params: readonly unknown[]): number;
  inTransaction(db: Db): boolean;
}

const betterSqlite: SyncDriver<BetterSqlite3.Database, BetterSqlite3.Statement> = {
  prepare(db, sql) {
    const statement = db.prepare(sql);
    return { statement, reader: statement.reader, readonly: statement.readonly };
  },
  all: (statement, params) => statement.all(...params) as Record<string, unknown>[],
  changes: (statement, params) => statement.run(...params).changes,
  inTransaction: (db) => db.inTransaction,
};

/** What the built-in SQLites' statements have in common. */
interface BuiltinStatement {
  all(...parameters: never[]): unknown[];
  run(...parameters: never[]): { changes: number | bigint };
}

/**
 * A driver of a built-in SQLite (`node:sqlite`, `bun:sqlite`), which reports no "reader" flag: a
 * statement with result columns (`hasColumns`) returns rows, and the store's reads are the
 * statements that start with SELECT.
 */
function builtinDriver<
  Db extends SyncDatabase & { prepare(sql: string): S },
  S extends BuiltinStatement,
>(hasColumns: (statement: S) => boolean, inTransaction: (db: Db) => boolean): SyncDriver<Db, S> {
  return {
    prepare(db, sql) {
      const statement = db.prepare(sql);
      return { statement, reader: hasColumns(statement), readonly: /^\s*SELECT\b/i.test(sql) };
    },
    all: (statement, params) => statement.all(...(params as never[])) as Record<string, unknown>[],
    changes: (statement, params) => Number(statement.run(...(params as never[])).changes),
    inTransaction,
  };
}

const nodeSqlite = builtinDriver<NodeSqliteDatabase, NodeSqliteStatement>(
  (statement) => statement.columns().length > 0,
  (db) => db.isTransaction,
);

const bunSqlite = builtinDriver<BunSqliteDatabase, BunSqliteStatement>(
  (statement) => statement.columnNames.length > 0,
  (db) => db.inTransaction,
);

/** What every executor on one Database shares: several stores on one handle still take turns. */
interface Shared {
  readonly mutex: Mutex;
  // Marks the async context of an open transaction: a statement issued from inside it (without
  // passing the handle) runs at once instead of waiting for the mutex it holds (a deadlock).
  readonly inTransaction: AsyncLocalStorage<Marker>;
  readonly statements: Map<string, Prepared<object>>;
  savepoints: number;
}

/** One open transaction: `open` until it ends; `gate` is what its handle checks. */
interface Marker {
  open: boolean;
  readonly gate: Gate;
}

const shared = new WeakMap<object, Shared>();

/** How each handle a transaction handed out ended (or that it is open), for the store's own statements through it. */
const handleGates = new WeakMap<object, Gate>();

/**
 * Makes `handle` (an object standing for the Database, such as a Drizzle database over it) a
 * handle of the transaction `state` belongs to: the store's statements through it are refused
 * once that transaction has ended, as through the Database's own handle.
 */
export function shareGate(handle: object, state: Gate): void {
  handleGates.set(handle, state);
}

/** The gate of a transaction handle this module handed out. */
export function gateOf(handle: unknown): Gate | undefined {
  return typeof handle === 'object' && handle !== null ? handleGates.get(handle) : undefined;
}

/** Statements a gated Database hands out are gated too: a prepared statement kept past the end refuses to run. */
function gatedDatabase<Db extends object>(db: Db, state: Gate): Db {
  const handle = gate(db, state, (method, result) =>
    method === 'prepare' && typeof result === 'object' && result !== null
      ? gate(result, state)
      : result,
  );
  handleGates.set(handle, state);
  return handle;
}

/** An executor over a better-sqlite3 `db`; a statement waits at most `waitMs` for an open transaction to end. */
export function sqliteExecutor(db: BetterSqlite3.Database, waitMs: number): Executor {
  return syncExecutor(db, waitMs, betterSqlite);
}

/** An executor over a `node:sqlite` `DatabaseSync`; the same contract as {@link sqliteExecutor}. */
export function nodeSqliteExecutor(db: NodeSqliteDatabase, waitMs: number): Executor {
  return syncExecutor(db, waitMs, nodeSqlite);
}

/** An executor over a `bun:sqlite` `Database`; the same contract as {@link sqliteExecutor}. */
export function bunSqliteExecutor(db: BunSqliteDatabase, waitMs: number): Executor {
  return syncExecutor(db, waitMs, bunSqlite);
}

/** The executors' shared state of `db`, made by the first executor over it. */
function sharedOf(db: object): Shared {
  return madeOnce(shared, db, () => ({
    mutex: new Mutex(),
    inTransaction: new AsyncLocalStorage(),
    statements: new Map(),
    savepoints: 0,
  }));
}

/** One executor's Database: its driver, the state it shares, how long a statement waits its turn. */
interface SyncContext<Db extends SyncDatabase, Statement extends object> {
  readonly db: Db;
  readonly driver: SyncDriver<Db, Statement>;
  readonly shared: Shared;
  readonly waitMs: number;
}

/** `sql` prepared once per Database. */
function preparedOf<Db extends SyncDatabase, Statement extends object>(
  { db, driver, shared: { statements } }: SyncContext<Db, Statement>,
  sql: string,
): Prepared<Statement> {
  return madeOnce(statements, sql, () => driver.prepare(db, sql)) as Prepared<Statement>;
}

/** Runs one statement now: its rows when it returns rows, else its change count. */
function runNow<Db extends SyncDatabase, Statement extends object>(
  context: SyncContext<Db, Statement>,
  sql: string,
  params: readonly unknown[],
): QueryResult {
  const { statement, reader } = preparedOf(context, sql);
  if (reader) {
    const rows = context.driver.all(statement, params);
    return { rows, affected: rows.length };
  }
  return { rows: [], affected: context.driver.changes(statement, params) };
}

/** The store's statement: through a transaction's handle, inside the open transaction, or in its turn. */
async function syncQuery<Db extends SyncDatabase, Statement extends object>(
  context: SyncContext<Db, Statement>,
  sql: string,
  params: readonly unknown[],
  transaction: unknown,
): Promise<QueryResult> {
  const { mutex, inTransaction } = context.shared;
  if (transaction !== undefined) {
    // The store's statement through a handle whose transaction has ended would run on the
    // bare connection, outside any transaction or inside the next one: refused, as the
    // handle itself refuses.
    const closed = handleGates.get(transaction as object)?.closed;
    if (closed) throw new TransactionClosed(closed);
    return runNow(context, sql, params);
  }
  if (inTransaction.getStore()?.open) return runNow(context, sql, params);
  // A read is one synchronous statement: it cannot interleave with another, so it need not
  // queue behind a handler's open transaction (it sees that transaction's rows, which commit
  // or roll back as a whole; the store only reads receipts this way).
  if (mutex.busy && preparedOf(context, sql).readonly) return runNow(context, sql, params);
  return mutex.run(() => runNow(context, sql, params), context.waitMs);
}

/** A transaction inside an open one (a nested guard, another store on the handle): a savepoint of it. */
async function savepoint<Db extends SyncDatabase, T>(
  { db, driver, shared: state }: SyncContext<Db, object>,
  outer: Marker,
  work: (transaction: unknown) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const name = `wi_savepoint_${++state.savepoints}`;
  db.exec(`SAVEPOINT ${name}`);
  const inner: Marker = { open: true, gate: { closed: undefined } };
  try {
    const result = await state.inTransaction.run(inner, () =>
      untilAborted(work(gatedDatabase(db, inner.gate)), signal),
    );
    if (!outer.open) throw new TransactionClosed(outer.gate.closed ?? 'rolled back');
    db.exec(`RELEASE ${name}`);
    inner.gate.closed = 'committed';
    return result;
  } catch (error) {
    inner.gate.closed = signal?.aborted ? 'timed out' : 'rolled back';
    if (outer.open && driver.inTransaction(db)) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
    }
    throw error;
  } finally {
    inner.open = false;
  }
}

/** A transaction of its own: `BEGIN IMMEDIATE` once the mutex is this executor's, for at most `waitMs` of waiting. */
async function ownTransaction<Db extends SyncDatabase, T>(
  { db, driver, shared: { mutex, inTransaction }, waitMs }: SyncContext<Db, object>,
  work: (transaction: unknown) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  await mutex.acquire(waitMs);
  const marker: Marker = { open: true, gate: { closed: undefined } };
  try {
    return await inTransaction.run(marker, async () => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await untilAborted(work(gatedDatabase(db, marker.gate)), signal);
        marker.gate.closed = 'committed';
        db.exec('COMMIT');
        return result;
      } catch (error) {
        // At the deadline the handler is between statements (this runs on the event loop, and
        // better-sqlite3 is synchronous), so the rollback cannot cut one in half.
        marker.gate.closed = signal?.aborted ? 'timed out' : 'rolled back';
        if (driver.inTransaction(db)) db.exec('ROLLBACK');
        throw error;
      }
    });
  } finally {
    // Work the handler left running must not bypass the mutex once the transaction is over.
    marker.open = false;
    mutex.release();
  }
}

function syncExecutor<Db extends SyncDatabase, Statement extends object>(
  db: Db,
  waitMs: number,
  driver: SyncDriver<Db, Statement>,
): Executor {
  const context: SyncContext<Db, Statement> = { db, driver, shared: sharedOf(db), waitMs };
  return {
    dialect: 'sqlite',
    query: (sql, params, transaction) => syncQuery(context, sql, params, transaction),
    busy: () => context.shared.mutex.busy,
    async transaction(work, options = {}) {
      const outer = context.shared.inTransaction.getStore();
      if (outer?.open) return savepoint(context, outer, work, options.signal);
      return ownTransaction(context, work, options.signal);
    },
  };
}
