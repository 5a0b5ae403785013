/**
 * The transaction handle is typed by the connection the store was built on, through the guard:
 * checked by `tsc` (this file is type-checked with the tests), asserted at run time only lightly.
 */
import { IdempotencyGuard, type RunContext } from '@webhook-idempotency/core';
import type BetterSqlite3 from 'better-sqlite3';
import Database from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import type { Connection as CallbackConnection } from 'mysql2';
import type mysqlCallback from 'mysql2';
import type { PoolConnection as PromiseConnection } from 'mysql2/promise';
import type mysql from 'mysql2/promise';
import pg from 'pg';
import { SqlStore, type TransactionOf } from '../src';

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
  });
  expect(new SqlStore(db).capabilities.transactional).toBe(true);
  sqlite.close();
  await Promise.all([pool.end(), db.destroy()]);
});
