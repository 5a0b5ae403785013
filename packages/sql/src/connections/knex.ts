/**
 * @module Executor over a user's knex instance: `knex.raw` with `?` bindings, `knex.transaction`.
 * knex reports results in each driver's own shape; they are read here and nowhere else.
 */
import type { Knex } from 'knex';
import { ConfigError, StoreError } from '@webhook-idempotency/core';
import { dialects } from '../dialects';
import {
  gate,
  untilAborted,
  type Executor,
  type Gate,
  type QueryResult,
  type Row,
} from './executor';
import type { SqlDialect } from './types';

/** knex's `client.dialect` → our dialect, for the drivers whose results we know how to read. */
const SUPPORTED: Readonly<Record<string, { dialect: SqlDialect; drivers: readonly string[] }>> = {
  postgresql: { dialect: 'postgres', drivers: ['pg'] },
  mysql: { dialect: 'mysql', drivers: ['mysql', 'mysql2'] },
  sqlite3: { dialect: 'sqlite', drivers: ['better-sqlite3'] },
};

/** True for a knex instance (or a knex transaction). */
export function isKnex(db: unknown): db is Knex {
  if (typeof db !== 'function') return false;
  const candidate = db as unknown as Partial<Knex>;
  return (
    typeof candidate.raw === 'function' &&
    typeof candidate.transaction === 'function' &&
    !!candidate.client
  );
}

function readResult(driver: string, result: unknown): QueryResult {
  if (driver === 'pg') {
    const { rows, rowCount } = result as { rows: Row[]; rowCount: number | null };
    return { rows, affected: rowCount ?? 0 };
  }
  // mysql/mysql2: [rows | ResultSetHeader, fields]; better-sqlite3: rows | RunResult.
  const value = driver === 'better-sqlite3' ? result : (result as unknown[])[0];
  if (Array.isArray(value)) return { rows: value as Row[], affected: value.length };
  const { affectedRows, changes, insertId } = value as {
    affectedRows?: number;
    changes?: number;
    insertId?: number;
  };
  return {
    rows: [],
    affected: affectedRows ?? changes ?? 0,
    ...(insertId === undefined ? {} : { insertId: Number(insertId) }),
  };
}

/** An executor over `knex`; throws a ConfigError for a client it cannot read results of. */
export function knexExecutor(knex: Knex): Executor {
  const client = knex.client as { dialect?: string; driverName?: string };
  const supported = SUPPORTED[client.dialect ?? ''];
  const driver = client.driverName ?? '';
  if (!supported?.drivers.includes(driver)) {
    throw new ConfigError(
      'db',
      `knex client "${driver || client.dialect}" is not supported; use pg, mysql2 (or mysql) or better-sqlite3`,
    );
  }
  return {
    dialect: supported.dialect,
    async query(sql, params, transaction) {
      const runner = (transaction as Knex.Transaction | undefined) ?? knex;
      return readResult(driver, await runner.raw(sql, params as Knex.RawBinding[]));
    },
    transaction(work, options = {}) {
      const { lockStatement, signal, timeoutMs } = options;
      let failed: { error: unknown } | undefined;
      const run = knex.transaction(async (trx) => {
        const state: Gate = { closed: undefined };
        if (lockStatement) await trx.raw(lockStatement);
        // knex sent its own BEGIN: the deadline's bounds go in one more round trip.
        const bounds = timeoutMs ? dialects[supported.dialect].transactionBounds(timeoutMs) : [];
        if (bounds.length > 0) await trx.raw(bounds.join('; '));
        try {
          const result = await untilAborted(work(gate(trx, state)), signal);
          state.closed = 'committed';
          return result;
        } catch (error) {
          // knex rolls back when this callback rejects. At the deadline a statement of the handler
          // may still be in flight on the connection: the rollback queues behind it (knex offers no
          // way to cut it), but the handle is closed and the guard has already answered.
          state.closed = signal?.aborted ? 'timed out' : 'rolled back';
          failed = { error };
          throw error;
        }
      });
      // knex rolls back when the work rejects, and rejects with the rollback's own error when the
      // rollback could not be sent: the connection failed under the work, whose error (its next
      // statement's, typically) is the store's failure (see Store.withTransaction).
      return run.catch((error: unknown) => {
        // (knex replaces an `undefined` rejection with an Error of its own: not a failed rollback.)
        if (failed && failed.error !== undefined && error !== failed.error && !signal?.aborted)
          throw new StoreError('transaction', failed.error);
        throw error;
      });
    },
  };
}
