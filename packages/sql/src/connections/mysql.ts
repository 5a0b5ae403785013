/**
 * @module Executor over a `mysql2` pool, promise or callback API. Statements go through the promise
 * API (`pool.promise()` for a callback pool, which wraps the same pool); a transaction hands the
 * handler a connection of the API the pool was built with.
 */
import type { Pool as CallbackPool, PoolConnection as CallbackConnection } from 'mysql2';
import type {
  ExecuteValues,
  Pool as PromisePool,
  PoolConnection as PromiseConnection,
} from 'mysql2/promise';
import { dialects } from '../dialects';
import { type Executor, pooledWithin, type QueryResult } from './executor';
import { type HeldConnection, runHeldTransaction } from './held-transaction';
import { hasMethods } from './shape';

/** True for a `mysql2/promise` pool. */
export function isMysqlPromisePool(db: unknown): db is PromisePool {
  return hasMethods(db, 'getConnection', 'query') && hasMethods(db.pool, 'getConnection');
}

/** True for a `mysql2` callback pool (it has `.promise()` and `.getConnection(callback)`). */
export function isMysqlCallbackPool(db: unknown): db is CallbackPool {
  if (!hasMethods(db, 'getConnection', 'promise')) return false;
  const config = db.config as { connectionConfig?: unknown } | null | undefined;
  return typeof config?.connectionConfig === 'object';
}

function toResult(result: unknown): QueryResult {
  if (Array.isArray(result)) return { rows: result, affected: result.length };
  const { affectedRows, insertId } = result as { affectedRows?: number; insertId?: number };
  return { rows: [], affected: affectedRows ?? 0, insertId: Number(insertId ?? 0) };
}

/** The promise face of a transaction handle of either API. */
function promiseFace(transaction: unknown): PromiseConnection {
  const connection = transaction as PromiseConnection | CallbackConnection;
  // A callback connection has `.promise()`; a promise connection has `.connection` (the core one) instead.
  return 'connection' in connection
    ? (connection as PromiseConnection)
    : (connection as CallbackConnection).promise();
}

/** Core connections the store has lent an 'error' listener to; the lock wait bound each was given. */
const listening = new WeakSet<object>();
const lockWaitBounds = new WeakMap<object, string>();

/** The store owns the errors of the connections it holds (a fatal one must not reach the process as an unhandled 'error'). */
function own(connection: PromiseConnection): PromiseConnection {
  const core = (connection as unknown as { connection?: CallbackConnection }).connection;
  if (core && !listening.has(core)) {
    listening.add(core);
    core.on('error', () => undefined); // the command in flight (or the next one) fails with it
  }
  return connection;
}

/**
 * Parameters for `execute()`: mysql2 sends a JS number as a DOUBLE, which MySQL 8.0.22 and later
 * refuse where the statement wants an integer (`LIMIT ?`: "Incorrect arguments to
 * mysqld_stmt_execute"). Integers go as decimal strings, which the server converts exactly.
 */
function executeParams(params: readonly unknown[]): ExecuteValues[] {
  return params.map((value) =>
    typeof value === 'number' && Number.isSafeInteger(value)
      ? String(value)
      : (value as ExecuteValues),
  );
}

/**
 * Row-lock waits inside the handler's transaction end at the handler deadline: the dialect's
 * transaction bounds, set once per connection (again only when the deadline changes).
 */
async function boundLockWaits(
  connection: PromiseConnection,
  timeoutMs: number | undefined,
): Promise<void> {
  if (!timeoutMs) return;
  const bounds = dialects.mysql.transactionBounds(timeoutMs).join('; ');
  const core = (connection as unknown as { connection?: object }).connection ?? connection;
  if (lockWaitBounds.get(core) === bounds) return;
  await connection.query(bounds);
  lockWaitBounds.set(core, bounds);
}

/** `connection`'s begun transaction, as {@link runHeldTransaction} ends it; the handler gets `handle`. */
function heldConnection(connection: PromiseConnection, handle: object): HeldConnection {
  return {
    handle,
    commit: () => connection.commit(),
    rollback: () => connection.rollback(),
    giveBack() {
      connection.release();
      return false;
    },
    // A statement may be in flight: close the connection, and the server rolls back.
    abandon: () => connection.destroy(),
    discard: () => connection.destroy(),
  };
}

/**
 * An executor over a mysql2 pool; `callbackApi` decides which connection a transaction hands out.
 * `prepared`: statements go through `execute()`, which mysql2 prepares once per connection.
 */
export function mysqlExecutor(
  db: PromisePool | CallbackPool,
  acquireTimeoutMs: number,
  prepared: boolean,
): Executor {
  const callbackApi = !isMysqlPromisePool(db);
  const pool: PromisePool = callbackApi ? (db as CallbackPool).promise() : (db as PromisePool);
  const acquire = async () => own(await pooledWithin(() => pool.getConnection(), acquireTimeoutMs));

  const run = async (
    connection: PromiseConnection,
    sql: string,
    params: readonly unknown[],
  ): Promise<QueryResult> => {
    const [result] = prepared
      ? await connection.execute(sql, executeParams(params))
      : await connection.query(sql, params as unknown[]);
    return toResult(result);
  };

  return {
    dialect: 'mysql',
    async query(sql, params, transaction) {
      if (transaction) return run(promiseFace(transaction), sql, params);
      const connection = await acquire();
      try {
        return await run(connection, sql, params);
      } finally {
        connection.release();
      }
    },
    async transaction(work, options = {}) {
      const connection = await acquire();
      try {
        await boundLockWaits(connection, options.timeoutMs);
        await connection.beginTransaction();
      } catch (error) {
        connection.destroy();
        throw error;
      }
      const handle = callbackApi
        ? (connection as unknown as { connection: CallbackConnection }).connection
        : connection;
      return runHeldTransaction(heldConnection(connection, handle), work, options.signal);
    },
  };
}
