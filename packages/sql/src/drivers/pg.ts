/** @module Executor over a `pg` Pool: `$n` placeholders, `BEGIN`/`COMMIT` on a pooled client. */
import type { Pool, PoolClient } from 'pg';
import { acquireWithin, type Executor, type QueryResult } from '../executor';

const numbered = new Map<string, string>();

/** `?` → `$1, $2, …` (the statements contain no other `?`), cached per statement. */
function toNumbered(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    numbered.set(sql, text);
  }
  return text;
}

async function run(client: PoolClient, sql: string, params: readonly unknown[]): Promise<QueryResult> {
  const result = await client.query(toNumbered(sql), params as unknown[]);
  return { rows: result.rows, affected: result.rowCount ?? 0 };
}

/** True for a `pg` Pool (a lone `Client` would interleave concurrent transactions). */
export function isPgPool(db: unknown): db is Pool {
  const candidate = db as Partial<Pool> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.connect === 'function' &&
    typeof candidate.query === 'function' &&
    'idleCount' in candidate &&
    'totalCount' in candidate
  );
}

/** An executor over `pool`; each statement borrows a client for at most `acquireTimeoutMs` of waiting. */
export function pgExecutor(pool: Pool, acquireTimeoutMs: number): Executor {
  const acquire = () => acquireWithin(() => pool.connect(), (client) => client.release(), acquireTimeoutMs);
  return {
    dialect: 'postgres',
    async query(sql, params, transaction) {
      if (transaction) return run(transaction as PoolClient, sql, params);
      const client = await acquire();
      try {
        const result = await run(client, sql, params);
        client.release();
        return result;
      } catch (error) {
        // A broken connection must not go back to the pool.
        client.release(error instanceof Error && !('severity' in error) ? error : undefined);
        throw error;
      }
    },
    async transaction(work) {
      const client = await acquire();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
          client.release();
        } catch (rollbackError) {
          client.release(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
        }
        throw error;
      }
    },
  };
}
