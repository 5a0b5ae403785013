/**
 * @module The D1 connection kind: a Cloudflare D1 binding runs single statements and batches
 * (each batch one SQL transaction, in one round trip) but no interactive transaction, so it is a
 * statement runner and no executor: the receipts table runs on it (`D1Store`), and nothing that
 * needs a transaction does.
 */
import { ConfigError } from '@webhook-idempotency/core';
import type { D1DatabaseLike, D1PreparedStatementLike, D1ResultLike } from './d1-types';
import type { QueryResult, Row, Statement, StatementRunner } from './executor';
import { returnsRows } from './orm';
import { hasMethods } from './shape';

/** True for a D1 binding (or miniflare's `getD1Database()`), by its shape. */
export function isD1(db: unknown): db is D1DatabaseLike {
  return hasMethods(db, 'prepare', 'batch');
}

/** A D1 result as the store reads results: its rows, and how many rows it changed (or returned). */
function resultOf(sql: string, result: D1ResultLike | undefined): QueryResult {
  const rows = (result?.results ?? []) as readonly Row[];
  return { rows, affected: returnsRows(sql) ? rows.length : (result?.meta.changes ?? 0) };
}

/**
 * The statement runner over a D1 binding: `prepare(sql).bind(...)`, then `all()` for a statement
 * that returns rows and `run()` for the others; `batch()` for several at once.
 * @throws {ConfigError} naming `db` when it is not a D1 binding.
 */
export function d1Runner(db: unknown): StatementRunner & {
  /** The bound statement of `sql`, as `D1Store.complete` batches the business writes with it. */
  prepared(sql: string, params: readonly unknown[]): D1PreparedStatementLike;
  /** Runs prepared statements in one `batch()`: one transaction, all or nothing. */
  batchPrepared(statements: D1PreparedStatementLike[]): Promise<D1ResultLike[]>;
} {
  if (!isD1(db))
    throw new ConfigError(
      'db',
      'must be a D1 binding (env.DB of a Worker with a [[d1_databases]] binding), or miniflare getD1Database()',
    );
  const prepared = (sql: string, params: readonly unknown[]) => db.prepare(sql).bind(...params);
  return {
    dialect: 'sqlite',
    prepared,
    batchPrepared: (statements) => db.batch(statements),
    async query(sql, params) {
      const statement = prepared(sql, params);
      return resultOf(sql, await (returnsRows(sql) ? statement.all() : statement.run()));
    },
    async batch(statements: readonly Statement[]) {
      const results = await db.batch(statements.map(({ sql, params }) => prepared(sql, params)));
      return statements.map(({ sql }, i) => resultOf(sql, results[i]));
    },
  };
}
