/**
 * The transaction handle is typed by the connection the store was built on, through the guard:
 * checked by `tsc` (this file is type-checked with the tests), asserted at run time only lightly.
 */
import { createClient } from '@libsql/client';
import {
  ConfigError,
  IdempotencyGuard,
  InMemoryStore,
  type RunContext,
  RequestKey,
  requireTransaction,
} from '@webhook-idempotency/core';
import { drizzle } from 'drizzle-orm/libsql';
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type BetterSqlite3 from 'better-sqlite3';
import Database from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import type { Connection as CallbackConnection } from 'mysql2';
import type mysqlCallback from 'mysql2';
import type { PoolConnection as PromiseConnection } from 'mysql2/promise';
import type mysql from 'mysql2/promise';
import pg from 'pg';
import { Schema, SqlStore, type TransactionOf } from '../src';
import { fromDrizzle } from '../src/drizzle';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(value: T) => value;
type HandleOf<Db extends ConstructorParameters<typeof SqlStore>[0]> =
  Parameters<Parameters<IdempotencyGuard<TransactionOf<Db>>['run']>[1]>[0] extends RunContext<
    infer Tx
  >
    ? Tx
    : never;

it('context.transaction is typed per connection kind', async () => {
  assertType<Equal<HandleOf<Knex>, Knex.Transaction>>(true);
  assertType<Equal<HandleOf<pg.Pool>, pg.PoolClient>>(true);
  assertType<Equal<HandleOf<mysql.Pool>, PromiseConnection>>(true);
  assertType<
    Equal<TransactionOf<mysqlCallback.Pool> extends CallbackConnection ? true : false, true>
  >(true);
  assertType<Equal<HandleOf<BetterSqlite3.Database>, BetterSqlite3.Database>>(true);

  // Inference from `new SqlStore(pool)` through `new IdempotencyGuard(store)`, without annotations.
  const pool = new pg.Pool({ host: '127.0.0.1', port: 1 });
  const guard = new IdempotencyGuard(new SqlStore(pool), { transactional: true });
  const handler: Parameters<typeof guard.run>[1] = async ({ transaction }) => {
    const client: pg.PoolClient | undefined = transaction;
    // @ts-expect-error the handle is not `any`
    const wrong: number | undefined = transaction;
    return [client, wrong];
  };
  expect(typeof handler).toBe('function');
  const sqlite = new Database(':memory:');
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
  });
  expect(new SqlStore(sqlite).capabilities).toEqual({
    crossProcess: true,
    transactional: true,
    clock: 'store',
    ignoredCounts: true,
  });
  expect(new SqlStore(db).capabilities.transactional).toBe(true);
  sqlite.close();
  await Promise.all([pool.end(), db.destroy()]);
});

it("requireTransaction(req.idempotency, store) gives the store's transaction type without a cast, and refuses a run without one", async () => {
  const pool = new pg.Pool({ host: '127.0.0.1', port: 1 });
  const pgStore = new SqlStore(pool);
  const fromRequest = (idempotency: { transaction?: unknown } | undefined) => {
    const client: pg.PoolClient = requireTransaction(idempotency, pgStore);
    // @ts-expect-error the transaction is not `any`
    const wrong: number = requireTransaction(idempotency, pgStore);
    return [client, wrong];
  };
  expect(() => fromRequest(undefined)).toThrow(ConfigError);
  // A store without transactions: the result accepts nothing, so the mistake does not compile.
  const memory = () => {
    // @ts-expect-error InMemoryStore has no transactions
    const client: pg.PoolClient = requireTransaction(
      { transaction: undefined },
      new InMemoryStore(),
    );
    return client;
  };
  expect(memory).toThrow(ConfigError);
  expect(() => fromRequest({ transaction: undefined })).toThrow(/transactional: true/);
  await pool.end();

  // Over an ORM, the ORM's own `tx`: Drizzle over libSQL here, its insert typed by the table.
  const orders = sqliteTable('orders', { id: text('id').primaryKey() });
  const client = createClient({ url: ':memory:' });
  const connection = fromDrizzle(drizzle({ client }));
  const store = new SqlStore(connection);
  await Schema.createTable(connection);
  await client.execute('CREATE TABLE orders (id TEXT PRIMARY KEY)');
  const guard = new IdempotencyGuard(store, { transactional: true });
  await guard.run(new RequestKey('github', 'd_1'), async (context) => {
    const tx = requireTransaction(context as { transaction?: unknown }, store);
    await tx.insert(orders).values({ id: 'o_1' });
    // @ts-expect-error a column the table does not have
    expect(() => tx.insert(orders).values({ nope: 1 })).toBeDefined();
  });
  expect((await client.execute('SELECT id FROM orders')).rows.map((row) => row.id)).toEqual([
    'o_1',
  ]);
  client.close();
});
