/**
 * Store failures surface as errors, never as "the handler ran anyway": connection refused, pool
 * exhausted (bounded by acquireTimeoutMs), driver errors. The guard wraps each in a StoreError
 * with the driver's error as `cause`.
 */
import { ConfigError, IdempotencyGuard, StoreError } from '@webhook-idempotency/core';
import Database from 'better-sqlite3';
import knex from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { freePort } from '@webhook-idempotency/test-support/databases';
import { Schema, SqlStore, type SqlConnection } from '../src';
import { mysqlDatabase, pgDatabase } from './helpers/databases';

const key = { provider: 'errors', externalId: 'evt_1' };

async function expectStoreError(
  db: SqlConnection,
  options: { table?: string; acquireTimeoutMs?: number } = {},
): Promise<StoreError> {
  const handler = jest.fn(async () => 'ran');
  const error = await new IdempotencyGuard(new SqlStore(db, options))
    .run(key, handler)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreError);
  expect(handler).not.toHaveBeenCalled();
  return error as StoreError;
}

describe('connection refused', () => {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });

  it('pg Pool', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres' });
    const error = await expectStoreError(pool);
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    await pool.end();
  });

  it('mysql2 pool', async () => {
    const pool = mysql.createPool({ host: '127.0.0.1', port, user: 'root' });
    const error = await expectStoreError(pool);
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    await pool.end();
  });

  it('knex', async () => {
    const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
    const db = knex({
      client: 'pg',
      connection: { host: '127.0.0.1', port, user: 'postgres' },
      acquireConnectionTimeout: 5_000,
      log: quiet,
    });
    const error = await expectStoreError(db);
    expect(String((error.cause as Error).message)).toMatch(/ECONNREFUSED|connect/);
    await db.destroy();
  });
});

describe('pool exhausted: the wait is bounded by acquireTimeoutMs, and the pool is not leaked', () => {
  it('pg Pool', async () => {
    const pool = new pg.Pool({ connectionString: await pgDatabase('wi_errors'), max: 1 });
    await Schema.createTable(pool);
    const held = await pool.connect();
    const error = await expectStoreError(pool, { acquireTimeoutMs: 200 });
    expect(error.message).toMatch(/pool exhausted/);
    held.release();
    // The connection that arrived after the deadline went back to the pool: the next run gets it.
    expect(
      await new IdempotencyGuard(new SqlStore(pool)).run(key, async () => 'ran'),
    ).toMatchObject({ isReplay: false });
    await pool.end();
  });

  it('mysql2 pool', async () => {
    const pool = mysql.createPool({ uri: await mysqlDatabase('wi_errors'), connectionLimit: 1 });
    await Schema.createTable(pool);
    const held = await pool.getConnection();
    const error = await expectStoreError(pool, { acquireTimeoutMs: 200 });
    expect(error.message).toMatch(/pool exhausted/);
    held.release();
    expect(
      await new IdempotencyGuard(new SqlStore(pool)).run(key, async () => 'ran'),
    ).toMatchObject({ isReplay: false });
    await pool.end();
  });
});

describe('driver errors propagate with the driver error as cause', () => {
  it('a missing table', async () => {
    const db = new Database(':memory:');
    const error = await expectStoreError(db, { table: 'not_created' });
    expect(error.cause).toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringMatching(/no such table/),
    });
  });

  it('a closed better-sqlite3 Database', async () => {
    const db = new Database(':memory:');
    await Schema.createTable(db);
    db.close();
    await expectStoreError(db);
  });
});

describe('options', () => {
  it.each([0, -1, Number.NaN, '100'])(
    'acquireTimeoutMs %p is rejected at construction',
    (acquireTimeoutMs) => {
      expect(
        () =>
          new SqlStore(new Database(':memory:'), { acquireTimeoutMs: acquireTimeoutMs as number }),
      ).toThrow(ConfigError);
    },
  );
});
