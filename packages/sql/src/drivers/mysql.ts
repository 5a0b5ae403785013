/**
 * @module Executor over a `mysql2` pool, promise or callback API. Statements go through the promise
 * API (`pool.promise()` for a callback pool, which wraps the same pool); a transaction hands the
 * handler a connection of the API the pool was built with.
 */
import type { Pool as CallbackPool, PoolConnection as CallbackConnection } from 'mysql2';
import type { Pool as PromisePool, PoolConnection as PromiseConnection } from 'mysql2/promise';
import { acquireWithin, type Executor, type QueryResult } from '../executor';

/** True for a `mysql2/promise` pool. */
export function isMysqlPromisePool(db: unknown): db is PromisePool {
  const candidate = db as { getConnection?: unknown; query?: unknown; pool?: { getConnection?: unknown } } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.getConnection === 'function' &&
    typeof candidate.query === 'function' &&
    typeof candidate.pool?.getConnection === 'function'
  );
}

/** True for a `mysql2` callback pool (it has `.promise()` and `.getConnection(callback)`). */
export function isMysqlCallbackPool(db: unknown): db is CallbackPool {
  const candidate = db as { getConnection?: unknown; promise?: unknown; config?: { connectionConfig?: unknown } } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.getConnection === 'function' &&
    typeof candidate.promise === 'function' &&
    typeof candidate.config?.connectionConfig === 'object'
  );
}

function toResult(result: unknown): QueryResult {
  if (Array.isArray(result)) return { rows: result, affected: result.length };
  return { rows: [], affected: (result as { affectedRows?: number }).affectedRows ?? 0 };
}

/** The promise face of a transaction handle of either API. */
function promiseFace(transaction: unknown): PromiseConnection {
  const connection = transaction as PromiseConnection | CallbackConnection;
  // A callback connection has `.promise()`; a promise connection has `.connection` (the core one) instead.
  return 'connection' in connection ? (connection as PromiseConnection) : (connection as CallbackConnection).promise();
}

/** An executor over a mysql2 pool; `callbackApi` decides which connection a transaction hands out. */
export function mysqlExecutor(db: PromisePool | CallbackPool, acquireTimeoutMs: number): Executor {
  const callbackApi = !isMysqlPromisePool(db);
  const pool: PromisePool = callbackApi ? (db as CallbackPool).promise() : (db as PromisePool);
  const acquire = () => acquireWithin(() => pool.getConnection(), (connection) => connection.release(), acquireTimeoutMs);

  const run = async (connection: PromiseConnection, sql: string, params: readonly unknown[]): Promise<QueryResult> => {
    const [result] = await connection.query(sql, params as unknown[]);
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
    async transaction(work) {
      const connection = await acquire();
      try {
        await connection.beginTransaction();
        const handle = callbackApi ? (connection as unknown as { connection: CallbackConnection }).connection : connection;
        const result = await work(handle);
        await connection.commit();
        return result;
      } catch (error) {
        await connection.rollback().catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
  };
}
