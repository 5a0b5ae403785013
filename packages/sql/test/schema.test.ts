/**
 * The receipts table: the DDL per dialect, createTable run twice on every database, the knex
 * migration, table-name validation, connection detection. (That every sql block of the docs shows
 * exactly this DDL is checked by examples/snippets/test/docs.test.ts.)
 */
import { ConfigError } from '@webhook-idempotency/core';
import Database from 'better-sqlite3';
import knex from 'knex';
import mysql from 'mysql2/promise';
import mysqlCallback from 'mysql2';
import pg from 'pg';
import { Schema, SqlStore, type SqlConnection, type SqlDialect } from '../src';
import { connectionOf, mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';

const DIALECTS: SqlDialect[] = ['postgres', 'mysql', 'sqlite'];

describe('Schema.statements', () => {
  it.each(DIALECTS)(
    '%s: the table option names the table and its constraints and indexes',
    (dialect) => {
      const ddl = Schema.statements(dialect, { table: 'my_receipts' }).join('\n');
      expect(ddl).not.toMatch(/webhook_receipts/);
      expect(ddl.match(/my_receipts/g)!.length).toBeGreaterThanOrEqual(5);
    },
  );

  it('rejects an unknown dialect and a bad table name', () => {
    expect(() => Schema.statements('oracle' as SqlDialect)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'dialect' }),
    );
    expect(() => Schema.statements('postgres', { table: 'x; DROP TABLE y' })).toThrow(ConfigError);
  });
});

describe('Schema.createTable is idempotent and gives a working table', () => {
  const connections: Record<string, () => Promise<{ db: SqlConnection; close(): Promise<void> }>> =
    {
      'pg Pool': async () => {
        const db = new pg.Pool({ connectionString: await pgDatabase('wi_schema') });
        return { db, close: () => db.end() };
      },
      'mysql2 promise pool': async () => {
        const db = mysql.createPool({ uri: await mysqlDatabase('wi_schema') });
        return { db, close: () => db.end() };
      },
      'better-sqlite3': async () => {
        const db = new Database(sqliteFile('schema'));
        return { db, close: async () => void db.close() };
      },
    };

  it.each(Object.keys(connections))('%s', async (name) => {
    const { db, close } = await connections[name]!();
    try {
      await Schema.createTable(db);
      await Schema.createTable(db);
      const store = new SqlStore(db);
      expect(
        (await store.claim({ provider: 'p', externalId: 'e' }, { now: 0, fingerprint: null })).won,
      ).toBe(true);
      await Schema.createTable(db);
      expect(await store.find({ provider: 'p', externalId: 'e' }, { now: 0 })).toMatchObject({
        status: 'processing',
      });
      // The longest table name there is (48): every table, index and constraint name fits.
      const longest = `_${'x'.repeat(47)}`;
      await Schema.createTable(db, { table: longest });
      await Schema.createTable(db, { table: longest });
    } finally {
      await close();
    }
  });

  it('the knex migration goes up (twice), down and up again', async () => {
    const db = knex({
      client: 'pg',
      connection: connectionOf(await pgDatabase('wi_schema_migration')),
    });
    try {
      const migration = Schema.knexMigration({ table: 'migrated_receipts' });
      await migration.up(db);
      await migration.up(db);
      expect(await db.schema.hasTable('migrated_receipts')).toBe(true);
      expect(await db.schema.hasTable('migrated_receipts_ignored')).toBe(true);
      await migration.down(db);
      expect(await db.schema.hasTable('migrated_receipts')).toBe(false);
      expect(await db.schema.hasTable('migrated_receipts_ignored')).toBe(false);
      await migration.up(db);
      expect(await db.schema.hasTable('migrated_receipts')).toBe(true);
    } finally {
      await db.destroy();
    }
  });
});

describe('new SqlStore(db, options)', () => {
  const sqlite = new Database(':memory:');
  afterAll(() => sqlite.close());

  it.each([
    '',
    'x; DROP TABLE y',
    '1abc',
    'public.receipts',
    'a-b',
    'naïve',
    '"quoted"',
    'x'.repeat(49),
  ])('rejects the table name %j at construction, naming the option', (table) => {
    expect(() => new SqlStore(sqlite, { table })).toThrow(ConfigError);
    expect(() => new SqlStore(sqlite, { table })).toThrow(/"table"/);
  });

  it('rejects a knex client it cannot read results of with a ConfigError naming db', async () => {
    const mssql = knex({ client: 'mssql' });
    try {
      expect(() => new SqlStore(mssql)).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'db' }),
      );
      expect(() => new SqlStore(mssql)).toThrow(/knex client "mssql" is not supported/);
    } finally {
      await mssql.destroy();
    }
  });

  it('rejects a table name that is not a string', () => {
    expect(() => new SqlStore(sqlite, { table: 42 as unknown as string })).toThrow(ConfigError);
  });

  it('accepts a plain identifier of 48 characters and defaults to webhook_receipts', () => {
    expect(new SqlStore(sqlite, { table: `_${'x'.repeat(47)}` }).table).toHaveLength(48);
    expect(new SqlStore(sqlite).table).toBe('webhook_receipts');
  });

  it('detects the dialect of every kind of connection without connecting', async () => {
    const pgPool = new pg.Pool({ host: '127.0.0.1', port: 1 });
    const mysqlPool = mysql.createPool({ host: '127.0.0.1', port: 1 });
    const callbackPool = mysqlCallback.createPool({ host: '127.0.0.1', port: 1 });
    const knexPg = knex({ client: 'pg' });
    const knexMysql = knex({ client: 'mysql2' });
    const knexSqlite = knex({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    try {
      expect(new SqlStore(pgPool).dialect).toBe('postgres');
      expect(new SqlStore(mysqlPool).dialect).toBe('mysql');
      expect(new SqlStore(callbackPool).dialect).toBe('mysql');
      expect(new SqlStore(sqlite).dialect).toBe('sqlite');
      expect(new SqlStore(knexPg).dialect).toBe('postgres');
      expect(new SqlStore(knexMysql).dialect).toBe('mysql');
      expect(new SqlStore(knexSqlite).dialect).toBe('sqlite');
      expect(pgPool.totalCount).toBe(0);
    } finally {
      await Promise.all([
        pgPool.end(),
        mysqlPool.end(),
        knexPg.destroy(),
        knexMysql.destroy(),
        knexSqlite.destroy(),
      ]);
      await new Promise((resolve) => callbackPool.end(resolve));
    }
  });

  it.each([
    ['a pg Client', () => new pg.Client()],
    ['a plain object', () => ({})],
    ['null', () => null],
    ['a connection string', () => 'postgres://localhost/db'],
  ])('rejects %s with a ConfigError naming db and what it accepts', (_, make) => {
    expect(() => new SqlStore(make() as SqlConnection)).toThrow(
      /knex instance, a pg Pool, a mysql2 pool/,
    );
    expect(() => new SqlStore(make() as SqlConnection)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'db' }),
    );
  });
});
