/**
 * SqlStore over Kysely (`fromKysely`) on PostgreSQL, MariaDB and a SQLite file: the whole store
 * contract, and the guard's cases with the business write made through Kysely's own
 * `Transaction<DB>`, typed from the store (no cast).
 */
import Database from 'better-sqlite3';
import { CamelCasePlugin, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import mysql from 'mysql2';
import pg from 'pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../src';
import { fromKysely } from '../src/kysely';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

/** The application's schema, as Kysely users declare it. */
interface Shop {
  orders: { id: string };
}

const insertOrder = (trx: import('kysely').Transaction<Shop>, id: string) =>
  trx.insertInto('orders').values({ id }).execute();

describe('PostgreSQL', () => {
  const db = sqlConformance('SqlStore (Kysely, PostgreSQL)', async () => {
    const pool = new pg.Pool({ connectionString: await pgDatabase('wi_kysely_pg'), max: 10 });
    const kysely = new Kysely<Shop>({ dialect: new PostgresDialect({ pool }) });
    return { db: fromKysely(kysely), close: () => kysely.destroy() };
  });
  guardCases(db, insertOrder);
});

describe('MariaDB', () => {
  const db = sqlConformance('SqlStore (Kysely, MariaDB)', async () => {
    const pool = mysql.createPool({
      uri: await mysqlDatabase('wi_kysely_mysql'),
      connectionLimit: 10,
    });
    const kysely = new Kysely<Shop>({ dialect: new MysqlDialect({ pool }) });
    return { db: fromKysely(kysely), close: () => kysely.destroy() };
  });
  guardCases(db, insertOrder);
});

describe('SQLite file', () => {
  const db = sqlConformance('SqlStore (Kysely, SQLite file)', async () => {
    const file = new Database(sqliteFile('kysely'));
    file.pragma('journal_mode = WAL');
    const kysely = new Kysely<Shop>({ dialect: new SqliteDialect({ database: file }) });
    return { db: fromKysely(kysely), close: () => kysely.destroy() };
  });
  guardCases(db, insertOrder);
});

describe('fromKysely', () => {
  it('gives the same connection for the same instance, and refuses a transaction or another dialect, naming db', async () => {
    const kysely = new Kysely<Shop>({
      dialect: new SqliteDialect({ database: new Database(':memory:') }),
    });
    expect(fromKysely(kysely)).toBe(fromKysely(kysely));
    expect(new SqlStore(fromKysely(kysely)).dialect).toBe('sqlite');
    await kysely.transaction().execute(async (trx) => {
      expect(() => fromKysely(trx as never)).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'db' }),
      );
    });
    const unknownDialect = {
      getExecutor: () => ({ adapter: new (class MssqlAdapter {})() }),
      isTransaction: false,
    };
    expect(() => fromKysely(unknownDialect as never)).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        option: 'db',
        message: expect.stringContaining('MssqlAdapter'),
      }),
    );
    await kysely.destroy();
  });
});

it('the store reads its own columns whatever plugins the instance has (CamelCasePlugin renames result columns)', async () => {
  const kysely = new Kysely<Shop>({
    dialect: new SqliteDialect({ database: new Database(sqliteFile('kysely-camel')) }),
    plugins: [new CamelCasePlugin()],
  });
  try {
    const connection = fromKysely(kysely);
    await Schema.createTable(connection);
    const guard = new IdempotencyGuard(new SqlStore(connection));
    const key = new RequestKey('stripe', 'evt_camel');
    expect(await guard.run(key, () => ({ paid: 'ord_1' }))).toMatchObject({ isReplay: false });
    expect(await guard.run(key, () => ({ paid: 'twice' }))).toEqual({
      response: { paid: 'ord_1' },
      isReplay: true,
      attempts: 1,
    });
    expect(await guard.find(key)).toMatchObject({ externalId: 'evt_camel', status: 'completed' });
  } finally {
    await kysely.destroy();
  }
});
