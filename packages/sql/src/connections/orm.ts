/**
 * @module A connection made by one of the ORM entry points (`/kysely`, `/drizzle`, `/prisma`, `/postgres`):
 * it carries the executor that speaks to that tool, so the package's root accepts every ORM
 * without naming one or importing its types.
 */
import { StoreError } from '@webhook-idempotency/core';
import {
  connectionDeadline,
  gate,
  untilAborted,
  type Executor,
  type Gate,
  type TransactionRunOptions,
} from './executor';
import { madeOnce } from './once';
import type { SqlDialect } from '../dialects/name';

/** The key of the executor an ORM connection carries; `Symbol.for`, so two copies of the package agree. */
export const EXECUTOR: unique symbol = Symbol.for('@webhook-idempotency/sql executor') as never;

/** What an ORM entry point's executor is built with: the store's own options. */
export interface ExecutorSettings {
  readonly acquireTimeoutMs: number;
  readonly preparedStatements: boolean;
}

/**
 * The application's ORM or query builder, made into a connection `SqlStore`, `SqlInbox`, `Schema`
 * and `ReceiptsAdmin` accept: `fromKysely(db)`, `fromDrizzle(db)`, `fromPrisma(prisma)`, `fromPostgres(sql)`. The
 * handler of a transactional guard over it gets `Tx`, that tool's own transaction object.
 *
 * @typeParam Tx the transaction handle the handler gets (`context.transaction`).
 */
export interface OrmConnection<Tx = unknown> {
  /** The tool and database, for messages: `'Kysely (postgres)'`. */
  readonly kind: string;
  /** The dialect the store speaks on it. */
  readonly dialect: SqlDialect;
  /** The object it was made from: the Kysely instance, the Drizzle database, the `sql` function. */
  readonly db: object;
  /** @internal Builds the executor; called once by each store or inbox built on the connection. */
  readonly [EXECUTOR]: (settings: ExecutorSettings) => Executor;
  /** @internal Never set: carries `Tx` to {@link TransactionOf}. */
  readonly transactionHandle?: Tx;
}

/** True for a connection one of the ORM entry points made. */
export function isOrmConnection(db: unknown): db is OrmConnection {
  return (
    typeof db === 'object' &&
    db !== null &&
    typeof (db as { [EXECUTOR]?: unknown })[EXECUTOR] === 'function'
  );
}

/**
 * The object a store's connection stands for: the ORM's own object for an ORM connection, so two
 * `fromKysely(db)` of one `db` are one connection (a transaction of one is a place where the
 * other's statements can run).
 */
export function identityOf(db: unknown): unknown {
  return isOrmConnection(db) ? db.db : db;
}

const made = new WeakMap<object, OrmConnection>();

/**
 * The ORM connection of `db`, built once per object (and per entry point), so the same `db`
 * wrapped twice gives the same connection.
 */
export function ormConnection<Tx>(
  db: object,
  build: () => Omit<OrmConnection<Tx>, 'db'>,
): OrmConnection<Tx> {
  return madeOnce(
    made,
    db,
    () => Object.freeze({ ...build(), db }) as OrmConnection,
  ) as OrmConnection<Tx>;
}

/**
 * True for a postgres-js `sql` instance, by its shape (this module imports nothing of postgres-js).
 * The `sql` of a transaction or of a reserved connection has neither `begin` nor `reserve`.
 */
export function isPostgresJsInstance(db: unknown): boolean {
  if (typeof db !== 'function') return false;
  const candidate = db as unknown as { unsafe?: unknown; begin?: unknown; reserve?: unknown };
  return (
    typeof candidate.unsafe === 'function' &&
    typeof candidate.begin === 'function' &&
    typeof candidate.reserve === 'function'
  );
}

/**
 * The store's statements that return rows: reads, and writes with `RETURNING` (a driver that runs
 * a statement either for its rows or for its change count needs to know which).
 */
export function returnsRows(sql: string): boolean {
  // Leading comments skipped: MariaDB's claim opens with a `/*M!SET STATEMENT … FOR*/` comment.
  return (
    /^\s*(?:\/\*[\s\S]*?\*\/\s*)*(?:SELECT|WITH|PRAGMA)\b/i.test(sql) || /\bRETURNING\b/i.test(sql)
  );
}

/** A count a driver reports as a number or a bigint (or not at all). */
export function countOf(value: unknown, otherwise: number): number {
  return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : otherwise;
}

/** How {@link callbackTransaction} drives a tool whose transactions run a callback. */
export interface CallbackTransaction<Tx> {
  /** Runs `body` in a new transaction of the tool: commits when it resolves, rolls back when it rejects. */
  readonly open: (body: (tx: Tx) => Promise<{ value: unknown }>) => PromiseLike<{ value: unknown }>;
  /** Statements run first inside it (the deadline's server-side bounds). */
  readonly setup?: ((tx: Tx) => Promise<unknown>) | undefined;
  /** How long the transaction may take to begin (a pool wait) before this gives up. */
  readonly acquireTimeoutMs: number;
  /** The driver's own error, for one the tool wrapped in its own. */
  readonly unwrap?: (error: unknown) => unknown;
  /**
   * True for a tool that tells of a connection closed under the callback only by rejecting what
   * `open` returned, and still writes its COMMIT or ROLLBACK to that connection once the callback
   * settles (postgres-js 3.4: the write to the closed socket throws in a timer, outside any
   * promise, and ends the process). The callback then settles a turn of the event loop later, and
   * not at all when the tool gave the transaction up meanwhile.
   */
  readonly writesAfterClose?: boolean;
  /** The handle's properties whose objects run statements too, gated as the handle is (see {@link gate}). */
  readonly members?: (property: PropertyKey) => boolean;
}

/** One turn of the event loop: the socket events already queued (a close) are handled first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What the callback of one transaction saw, shared with {@link callbackTransaction}. */
interface CallbackRun {
  /** What `work` rejected with (the handler's failure), when it did. */
  failed?: { error: unknown };
  /** The handler's run once it started, settled either way. */
  running?: Promise<unknown>;
  /** The callback has returned or thrown: the tool commits or rolls back. */
  settled: boolean;
  /** The tool gave the transaction up before the callback settled (its connection closed). */
  gone: boolean;
}

type Outcome = { value: unknown } | { error: unknown };

/** The setup statements, then `work` on the gated handle; what happened, as a value. */
async function runIn<Tx extends object>(
  tx: Tx,
  work: (transaction: unknown) => Promise<unknown>,
  signal: AbortSignal | undefined,
  state: Gate,
  tool: CallbackTransaction<Tx>,
  run: CallbackRun,
): Promise<Outcome> {
  try {
    await tool.setup?.(tx);
  } catch (error) {
    return { error };
  }
  try {
    const running = untilAborted(work(gate(tx, state, undefined, tool.members)), signal);
    run.running = running.catch(() => undefined);
    const value = await running;
    state.closed ??= 'committed';
    return { value };
  } catch (error) {
    state.closed ??= signal?.aborted ? 'timed out' : 'rolled back';
    run.failed = { error };
    return { error };
  }
}

/**
 * Runs the store's `work` in a transaction of a tool that commits when its callback resolves and
 * rolls back when it rejects (Drizzle's `db.transaction`, postgres-js's `sql.begin`), with the
 * store's bounds: the begin waits at most `acquireTimeoutMs` (a transaction that begins later is
 * rolled back at once), the handle is gated, and when `signal` aborts this rejects at once and the
 * tool rolls back behind any statement still in flight (it offers no way to cut one). A rollback
 * that could not be sent makes this a `StoreError` whose cause is what `work` rejected with.
 */
export async function callbackTransaction<Tx extends object, T>(
  work: (transaction: unknown) => Promise<T>,
  { signal }: TransactionRunOptions,
  tool: CallbackTransaction<Tx>,
): Promise<T> {
  const state: Gate = { closed: undefined };
  const begin = connectionDeadline(tool.acquireTimeoutMs);
  const run: CallbackRun = { settled: false, gone: false };
  // The result travels in an object: postgres-js awaits every element of an array a callback returns.
  const body = Promise.resolve(
    tool.open(async (tx) => {
      begin.stop();
      if (begin.late()) throw new Error('the transaction began after its wait had given up');
      const outcome = await runIn(tx, work, signal, state, tool, run);
      // An outcome the connection's close itself settled (the handler's statement failed with it)
      // can arrive before the tool's rejection does: one turn later, the tool has rejected.
      if (tool.writesAfterClose) await nextTurn();
      // The tool gave this transaction up under the callback (its connection closed): it must send
      // nothing more on that connection. postgres-js would write the COMMIT or ROLLBACK of a
      // settled callback to the closed socket, which throws outside any promise (3.4.9: "Cannot
      // read properties of null (reading 'write')") and ends the process; left unsettled, the
      // callback is collected with the connection.
      if (run.gone) return new Promise<never>(() => undefined);
      run.settled = true;
      if ('error' in outcome) throw outcome.error;
      return outcome;
    }),
  );
  body.catch(() => {
    if (!run.settled) run.gone = true;
  });
  try {
    return (await Promise.race([body, begin.waited])).value as T;
  } catch (caught) {
    return await failed(caught, run, state, signal, tool.unwrap ?? ((error) => error));
  } finally {
    begin.stop();
  }
}

/** Why {@link callbackTransaction} failed, once the handler it ran (if any) has settled. */
async function failed(
  caught: unknown,
  run: CallbackRun,
  state: Gate,
  signal: AbortSignal | undefined,
  unwrap: (error: unknown) => unknown,
): Promise<never> {
  // The transaction ended under a handler still running (postgres-js rejects its `begin` when the
  // connection closes): the handle refuses from now on, so the handler's next statement fails at
  // once instead of reaching a dead connection, and the deadline still bounds it.
  const abandoned = !run.failed && run.running !== undefined;
  if (abandoned) {
    state.closed ??= 'rolled back';
    await run.running;
  }
  // The work's own error goes back as it was thrown (a handler rethrowing Drizzle's error stays
  // the handler's failure); only what the tool itself threw is unwrapped.
  if (run.failed && caught === run.failed.error) throw caught;
  const error = unwrap(caught);
  if (run.failed && error !== run.failed.error && !signal?.aborted)
    throw new StoreError('transaction', run.failed.error);
  // The connection closed under a handler that then finished: nothing it wrote committed.
  if (abandoned && !signal?.aborted) throw new StoreError('transaction', error);
  throw error;
}
