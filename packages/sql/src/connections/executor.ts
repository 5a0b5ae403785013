/**
 * @module The thin layer between the stores and a driver: run one statement (rows and affected
 * count), run work in a transaction. One small executor per kind of connection, in this folder:
 * the drivers (knex, pg, mysql2, the SQLite drivers), the ORMs and query builders (Kysely,
 * Drizzle, Prisma, postgres-js), and D1, whose connection runs statements and batches but no
 * interactive transaction.
 */
import { TransactionClosed } from '@webhook-idempotency/core';
import { raceAbort } from '@webhook-idempotency/core/adapter';
import type { SqlDialect } from '../dialects/name';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** What one statement produced. */
export interface QueryResult {
  readonly rows: readonly Row[];
  /** Rows the statement inserted, updated or deleted (for `RETURNING`, the rows returned). */
  readonly affected: number;
  /** MySQL: the statement's insert id (what `LAST_INSERT_ID(expr)` set), when it reported one. */
  readonly insertId?: number;
}

/** One statement and its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Runs statements on the user's connection, of any kind. Never opens or closes it. */
export interface StatementRunner {
  readonly dialect: SqlDialect;
  /** Runs one statement with `?` placeholders, in `transaction` when given. */
  query(sql: string, params: readonly unknown[], transaction?: unknown): Promise<QueryResult>;
  /**
   * True while a statement of the store would have to wait for a transaction (a single connection
   * held by a handler). Reads do not wait (they run on the connection at once), so a replay need
   * not wait for someone else's handler.
   */
  busy?(): boolean;
  /**
   * Where the connection runs several statements in one round trip as one transaction (D1's
   * `batch()`): all of them commit, or none. Resolves with each statement's result, in order.
   */
  batch?(statements: readonly Statement[]): Promise<QueryResult[]>;
}

/** Runs statements on the user's connection, and work in its transactions. Never opens or closes it. */
export interface Executor extends StatementRunner {
  /**
   * Runs `work` in a transaction: commits when it resolves, rolls back when it rejects, and ends
   * it at once when `options.signal` aborts, so that a hung handler never holds a connection and
   * its locks past its deadline. `work` gets a handle that refuses every call once the
   * transaction has ended ({@link gate}).
   */
  transaction<T>(
    work: (transaction: unknown) => Promise<T>,
    options?: TransactionRunOptions,
  ): Promise<T>;
}

/** How the store asks an executor for a transaction. */
export interface TransactionRunOptions {
  /** A statement run first, to take the write lock at BEGIN (SQLite under knex). */
  readonly lockStatement?: string | undefined;
  /** The guard's handler deadline: end the transaction now. */
  readonly signal?: AbortSignal | undefined;
  /** The same deadline in milliseconds, for server-side lock and idle timeouts. */
  readonly timeoutMs?: number | undefined;
}

/** How a transaction ended, once it has. */
export interface Gate {
  closed: TransactionClosed['reason'] | undefined;
}

/**
 * The handle a handler gets: `target` itself while the transaction is open, refusing every method
 * call with {@link TransactionClosed} once `gate.closed` is set, so "answer first, write later"
 * code cannot write through a connection that is back in the pool (or into whichever transaction
 * is open next). `wrap` lets a driver gate the objects a method returns (better-sqlite3 statements);
 * `members` names the properties whose objects are gated as well, for a tool whose statements run
 * through an object of the handle (Prisma's model delegates: `tx.order.create(…)`).
 */
export function gate<T extends object>(
  target: T,
  state: Gate,
  wrap?: (method: PropertyKey, result: unknown) => unknown,
  members?: (property: PropertyKey) => boolean,
): T {
  const check = () => {
    if (state.closed) throw new TransactionClosed(state.closed);
  };
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') {
        if (typeof value !== 'object' || value === null || !members?.(property)) return value;
        let member = methods.get(property);
        if (member === undefined) {
          member = gate(value, state);
          methods.set(property, member);
        }
        return member;
      }
      let method = methods.get(property);
      if (method === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        method = function gated(...args: unknown[]): unknown {
          check();
          const result = fn.apply(object, args);
          return wrap ? wrap(property, result) : result;
        };
        methods.set(property, method);
      }
      return method;
    },
    apply(fn, thisArg, args) {
      check();
      return Reflect.apply(fn as (...a: unknown[]) => unknown, thisArg, args);
    },
  });
}

/** `work` unless `signal` aborts first; then rejects at once with the signal's reason (the work is left to settle unobserved). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return raceAbort(work, signal, aborted);
}

function aborted(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new Error('the transaction was ended at the handler deadline');
}

/**
 * Waits for a pooled connection at most `ms`. A connection that arrives after the deadline is
 * handed back to the pool, so a timeout never leaks one.
 */
export async function acquireWithin<C>(
  acquire: () => Promise<C>,
  release: (connection: C) => void,
  ms: number,
): Promise<C> {
  const pending = acquire();
  const deadline = connectionDeadline(ms);
  try {
    return await Promise.race([pending, deadline.waited]);
  } finally {
    deadline.stop();
    if (deadline.late()) pending.then(release, () => undefined);
  }
}

/** A pooled connection within `ms`; one that arrives later goes back to its pool by its own `release()`. */
export function pooledWithin<C extends { release(): void }>(
  acquire: () => Promise<C>,
  ms: number,
): Promise<C> {
  return acquireWithin(acquire, (connection) => connection.release(), ms);
}

/**
 * The bound on getting a connection (a pool's acquire, a transaction's begin): `waited` rejects
 * after `ms` unless `stop()` came first, and `late()` says whether it did.
 */
export function connectionDeadline(ms: number): {
  waited: Promise<never>;
  late(): boolean;
  stop(): void;
} {
  let late = false;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(
        new Error(
          `no database connection within ${ms} ms (pool exhausted or database unreachable)`,
        ),
      );
    }, ms);
  });
  waited.catch(() => undefined);
  return { waited, late: () => late, stop: () => clearTimeout(timer) };
}
