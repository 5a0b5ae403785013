/** @module Executor over a `pg` Pool: `$n` placeholders, `BEGIN`/`COMMIT` on a pooled client. */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { dialects } from '../dialects';
import { type Executor, pooledWithin, type QueryResult } from './executor';
import { type HeldConnection, runHeldTransaction } from './held-transaction';
import { madeOnce } from './once';
import { hasMethods } from './shape';

/** A statement as pg sends it: `$n` placeholders, and a name when it is sent prepared. */
interface PgStatement {
  readonly text: string;
  readonly name: string;
}

const statements = new Map<string, PgStatement>();

/**
 * `?` → `$1, $2, …` (the statements contain no other `?`) and a name derived from the text,
 * cached per statement. The store's statements are a handful of fixed texts per table, so the
 * cache stays small; the prefix keeps clear of the application's own named statements.
 */
function statementFor(sql: string): PgStatement {
  return madeOnce(statements, sql, () => {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    // Named after the text itself: two copies of this module (its ESM and CommonJS builds, two
    // installed versions) sharing one Pool never give one name to two different statements.
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
    return { text, name: `webhook_idempotency_${digest}` };
  });
}

async function run(
  client: PoolClient,
  sql: string,
  params: readonly unknown[],
  prepared: boolean,
): Promise<QueryResult> {
  const { text, name } = statementFor(sql);
  // Named: the server parses and plans it once per connection, then only binds and executes.
  const result = prepared
    ? await client.query({ name, text, values: params as unknown[] })
    : await client.query(text, params as unknown[]);
  return { rows: result.rows, affected: result.rowCount ?? 0 };
}

/** Clients the store has lent an 'error' listener to, and those whose connection broke. */
const listening = new WeakSet<PoolClient>();
const broken = new WeakMap<PoolClient, Error>();

/**
 * pg-pool removes its own 'error' listener while a client is checked out, and pg's client emits
 * 'error' when its connection ends unexpectedly (a database restart, a cut connection): without a
 * listener that crashes the process. The store owns the errors of every client it holds: the
 * statement in flight (or the next one) fails and becomes a StoreError, and the broken client is
 * released with its error so the pool discards it. One listener per client, for its lifetime.
 */
function own(client: PoolClient): PoolClient {
  if (!listening.has(client)) {
    listening.add(client);
    client.on('error', (error: Error) => broken.set(client, error));
  }
  return client;
}

/** Gives `client` back to the pool, destroying it when it broke or `error` says it may have. */
function giveBack(client: PoolClient, error?: unknown): void {
  const fault =
    broken.get(client) ?? (error instanceof Error && !('severity' in error) ? error : undefined);
  client.release(fault);
}

/**
 * `BEGIN`, with the handler deadline enforced by the server too (the dialect's transaction
 * bounds), in one round trip.
 */
function beginStatement(timeoutMs: number | undefined): string {
  return timeoutMs
    ? ['BEGIN', ...dialects.postgres.transactionBounds(timeoutMs)].join('; ')
    : 'BEGIN';
}

/** True for a `pg` Pool (a lone `Client` would interleave concurrent transactions). */
export function isPgPool(db: unknown): db is Pool {
  return hasMethods(db, 'connect', 'query') && 'idleCount' in db && 'totalCount' in db;
}

/** `client`'s begun transaction, as {@link runHeldTransaction} ends it. */
function heldClient(client: PoolClient): HeldConnection {
  return {
    handle: client,
    commit: () => client.query('COMMIT'),
    rollback: () => client.query('ROLLBACK'),
    giveBack() {
      const lost = broken.has(client);
      giveBack(client);
      return lost;
    },
    // A statement may be in flight: close the connection, and the server rolls back.
    abandon: () =>
      client.release(broken.get(client) ?? new Error('transaction ended at the handler deadline')),
    discard: (rollbackError) =>
      client.release(
        rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)),
      ),
  };
}

/** An executor over `pool`; each statement borrows a client for at most `acquireTimeoutMs` of waiting. */
export function pgExecutor(pool: Pool, acquireTimeoutMs: number, prepared: boolean): Executor {
  const acquire = async () => own(await pooledWithin(() => pool.connect(), acquireTimeoutMs));
  return {
    dialect: 'postgres',
    async query(sql, params, transaction) {
      if (transaction) return run(transaction as PoolClient, sql, params, prepared);
      const client = await acquire();
      try {
        const result = await run(client, sql, params, prepared);
        giveBack(client);
        return result;
      } catch (error) {
        // A broken connection must not go back to the pool.
        giveBack(client, error);
        throw error;
      }
    },
    async transaction(work, options = {}) {
      const client = await acquire();
      try {
        await client.query(beginStatement(options.timeoutMs));
      } catch (error) {
        giveBack(client, error);
        throw error;
      }
      return runHeldTransaction(heldClient(client), work, options.signal);
    },
  };
}
