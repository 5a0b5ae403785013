/**
 * SqlStore over Drizzle (`fromDrizzle`) on PostgreSQL (node-postgres and postgres-js), MariaDB
 * (mysql2) and SQLite (better-sqlite3, libSQL in memory; a libSQL file is refused): the whole store contract, and the guard's cases
 * with the business write made through Drizzle's own `tx`, typed from the store (no cast).
 */
import Database from 'better-sqlite3';
import { createClient } from '@libsql/client';
import { drizzle as overSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as overLibsql } from 'drizzle-orm/libsql';
import { mysqlTable, varchar as mysqlVarchar } from 'drizzle-orm/mysql-core';
import { drizzle as overMysql } from 'drizzle-orm/mysql2';
import { drizzle as overPg } from 'drizzle-orm/node-postgres';
import { pgTable, varchar } from 'drizzle-orm/pg-core';
import { drizzle as overPostgresJs } from 'drizzle-orm/postgres-js';
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { IdempotencyGuard, RequestKey, StoreError } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../src';
import { fromDrizzle } from '../src/drizzle';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const pgOrders = pgTable('orders', { id: varchar('id', { length: 100 }).primaryKey() });
const mysqlOrders = mysqlTable('orders', { id: mysqlVarchar('id', { length: 100 }).primaryKey() });
const sqliteOrders = sqliteTable('orders', { id: text('id').primaryKey() });

describe('node-postgres', () => {
  const db = sqlConformance('SqlStore (Drizzle over node-postgres)', async () => {
    const pool = new pg.Pool({ connectionString: await pgDatabase('wi_drizzle_pg'), max: 10 });
    return { db: fromDrizzle(overPg(pool)), close: () => pool.end() };
  });
  guardCases(db, (tx, id) => tx.insert(pgOrders).values({ id }));
});

describe('postgres-js', () => {
  const db = sqlConformance('SqlStore (Drizzle over postgres-js)', async () => {
    const client = postgres(await pgDatabase('wi_drizzle_pgjs'), {
      max: 10,
      onnotice: () => undefined,
    });
    return { db: fromDrizzle(overPostgresJs(client)), close: () => client.end() };
  });
  guardCases(db, (tx, id) => tx.insert(pgOrders).values({ id }));
});

describe('mysql2, MariaDB', () => {
  const db = sqlConformance('SqlStore (Drizzle over mysql2, MariaDB)', async () => {
    const pool = mysql.createPool({
      uri: await mysqlDatabase('wi_drizzle_mysql'),
      connectionLimit: 10,
    });
    return { db: fromDrizzle(overMysql(pool)), close: () => pool.end() };
  });
  guardCases(db, (tx, id) => tx.insert(mysqlOrders).values({ id }));
});

describe('better-sqlite3 file', () => {
  const db = sqlConformance('SqlStore (Drizzle over better-sqlite3)', async () => {
    const client = new Database(sqliteFile('drizzle'));
    client.pragma('journal_mode = WAL');
    return { db: fromDrizzle(overSqlite(client)), close: async () => void client.close() };
  });
  // The handle is the Drizzle database itself, inside the store's BEGIN IMMEDIATE.
  guardCases(db, async (tx, id) => tx.insert(sqliteOrders).values({ id }).run());
});

it('libSQL on a file is refused at the first statement with a ConfigError naming db, and nothing is written to the file', async () => {
  // @libsql/client 0.18 leaves a write that met a locked file active on its connection, and that
  // connection's later writes never commit (reproduced: another connection never sees them).
  const file = sqliteFile('drizzle-libsql-file');
  const client = createClient({ url: `file:${file}` });
  try {
    const connection = fromDrizzle(overLibsql({ client }));
    const refused = expect.objectContaining({
      name: 'ConfigError',
      option: 'db',
      message: expect.stringMatching(/libSQL file.*better-sqlite3/),
    });
    await expect(Schema.createTable(connection)).rejects.toEqual(refused);
    const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });
    // At run time the store's failure carries it: a StoreError whose cause is that ConfigError.
    const error = await guard
      .run(new RequestKey('github', 'd_file'), async () => 'never')
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).cause).toEqual(refused);
    expect(
      (await client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows,
    ).toEqual([]);
  } finally {
    client.close();
  }
});

describe('libSQL in memory', () => {
  // One connection, which an open transaction holds: the store's reads wait their turn then.
  const db = sqlConformance('SqlStore (Drizzle over libSQL :memory:)', async () => {
    const client = createClient({ url: ':memory:' });
    return { db: fromDrizzle(overLibsql({ client })), close: async () => client.close() };
  });
  guardCases(db, (tx, id) => tx.insert(sqliteOrders).values({ id }));
});

describe('fromDrizzle', () => {
  it('gives the same connection for the same database, and refuses a transaction or something else, naming db', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: 1 });
    const db = overPg(pool);
    expect(fromDrizzle(db)).toBe(fromDrizzle(db));
    expect(new SqlStore(fromDrizzle(db)).dialect).toBe('postgres');
    const sqlite = overSqlite(new Database(':memory:'));
    sqlite.transaction((tx) => {
      expect(() => fromDrizzle(tx)).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'db' }),
      );
    });
    expect(() => fromDrizzle({} as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'db' }),
    );
    // A remote libSQL server (Turso, sqld) is refused by name; nothing is sent to it.
    const remote = createClient({ url: 'http://127.0.0.1:1' });
    expect(() => fromDrizzle(overLibsql({ client: remote }))).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        option: 'db',
        message: expect.stringMatching(/remote libSQL/),
      }),
    );
    remote.close();
    await pool.end();
  });
});

it("a handler that rethrows Drizzle's error for its own failed write fails with that error, not as a store failure", async () => {
  const pool = new pg.Pool({ connectionString: await pgDatabase('wi_drizzle_rethrow'), max: 4 });
  try {
    const connection = fromDrizzle(overPg(pool));
    await Schema.createTable(connection);
    await pool.query(
      "CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY); INSERT INTO orders VALUES ('o_1')",
    );
    const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });
    let thrown: unknown;
    const run = guard.run(new RequestKey('stripe', 'evt_dup'), async ({ transaction: tx }) => {
      try {
        await tx!.insert(pgOrders).values({ id: 'o_1' }); // a unique violation
      } catch (error) {
        thrown = error;
        throw error;
      }
    });
    const error = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(thrown).toBeDefined();
    expect(error).toBe(thrown);
    expect(error).not.toBeInstanceOf(StoreError);
  } finally {
    await pool.end();
  }
});
