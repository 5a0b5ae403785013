/**
 * @module Every kind of connection SqlStore accepts, opened on a database (or SQLite file) of its
 * own: for regression tests that must hold on each of them.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import Database from 'better-sqlite3';
import { sql as drizzleSql, type SQL, type SQLChunk } from 'drizzle-orm';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql';
import { createClient as createLibsqlClient } from '@libsql/client';
import knex from 'knex';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import type { SqlConnection } from '../../src';
import { fromDrizzle } from '../../src/drizzle';
import { fromKysely } from '../../src/kysely';
import { fromPostgres } from '../../src/postgres-js';
import { fromPrisma } from '../../src/prisma';
import { PrismaClient as PrismaMysql } from '../prisma/generated/mysql/client';
import { PrismaClient as PrismaPostgres } from '../prisma/generated/postgresql/client';
import { PrismaClient as PrismaSqlite } from '../prisma/generated/sqlite/client';
import { connectionOf, mariadbConfigOf, mysqlDatabase, pgDatabase, sqliteFile } from './databases';

/** An open connection of one kind. */
export interface OpenedKind {
  readonly db: SqlConnection;
  close(): Promise<void>;
}

/** What a kind of connection can do, for the tests that depend on it. */
export interface KindCapabilities {
  /** The server itself ends a lock wait inside the guard's transaction at the handler deadline. */
  readonly serverLockTimeout: boolean;
}

/**
 * Runs one statement with `?` placeholders through a transaction handle the guard gave a handler,
 * the way a user of that kind of connection would (`query`, `raw`, `prepare().run()`).
 */
export async function runOn(handle: unknown, sql: string, params: unknown[]): Promise<unknown> {
  const h = handle as Record<string, (...args: unknown[]) => unknown>;
  const numbered = () => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  if (typeof handle === 'function' && typeof h.raw === 'function') return h.raw(sql, params); // knex
  if (typeof h.executeQuery === 'function' && typeof h.selectFrom === 'function') {
    // Kysely: a raw compiled query, numbered on PostgreSQL.
    const adapter = (h.getExecutor!() as { adapter: object }).adapter;
    const text = adapter.constructor.name.startsWith('Postgres') ? numbered() : sql;
    return h.executeQuery!(CompiledQuery.raw(text, params));
  }
  if (typeof h.insert === 'function' && typeof h.select === 'function') {
    // Drizzle: the statement as Drizzle SQL; `run` on SQLite, `execute` elsewhere.
    const parts = sql.split('?');
    const chunks: SQLChunk[] = [drizzleSql.raw(parts[0]!)];
    for (let i = 1; i < parts.length; i++)
      chunks.push(drizzleSql.param(params[i - 1]), drizzleSql.raw(parts[i]!));
    const statement: SQL = drizzleSql.join(chunks);
    return typeof h.execute === 'function' ? h.execute(statement) : h.run!(statement);
  }
  if (typeof handle === 'function' && typeof h.unsafe === 'function')
    return h.unsafe(numbered(), params); // postgres-js
  if (typeof h.$executeRawUnsafe === 'function') {
    // Prisma: `$n` on PostgreSQL (the client knows its provider), `?` elsewhere.
    const provider = (handle as { _activeProvider?: string })._activeProvider;
    const text = provider === 'postgresql' || provider === 'postgres' ? numbered() : sql;
    return /^\s*SELECT\b/i.test(sql)
      ? h.$queryRawUnsafe!(text, ...params)
      : h.$executeRawUnsafe(text, ...params);
  }
  if (typeof h.prepare === 'function' && typeof h.pragma === 'function') {
    return (h.prepare(sql) as { run(...args: unknown[]): unknown }).run(...params); // better-sqlite3
  }
  if (typeof h.escape === 'function') {
    if ('connection' in (handle as object)) return h.query!(sql, params); // mysql2 promise connection
    return new Promise((resolve, reject) =>
      h.query!(sql, params, (error: unknown, rows: unknown) =>
        error ? reject(error) : resolve(rows),
      ),
    );
  }
  let n = 0; // pg: `$n` placeholders
  return h.query!(
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  );
}

/**
 * `[name, open]` for each ORM connection (`fromKysely`, `fromDrizzle`, `fromPostgres`) on each
 * database it supports; `tag` keeps databases and files apart per test file.
 */
export function ormKinds(
  tag: string,
): Array<[string, () => Promise<OpenedKind>, KindCapabilities]> {
  const name = (kind: string) => `wi_${tag.replace(/[^a-z0-9]/gi, '_')}_${kind}`.toLowerCase();
  const pgPool = async (kind: string) =>
    new pg.Pool({ connectionString: await pgDatabase(name(kind)), max: 4 });
  const mysqlPool = async (kind: string) =>
    mysqlPromise.createPool({ uri: await mysqlDatabase(name(kind)), connectionLimit: 4 });
  const sqliteDb = (kind: string) => {
    const db = new Database(sqliteFile(`${tag}-${kind}`));
    db.pragma('journal_mode = WAL');
    return db;
  };
  return [
    [
      'Kysely, PostgreSQL',
      async () => {
        const db = new Kysely<unknown>({
          dialect: new PostgresDialect({ pool: await pgPool('kysely_pg') }),
        });
        return { db: fromKysely(db), close: () => db.destroy() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Kysely, MariaDB',
      async () => {
        const pool = mysql.createPool({
          uri: await mysqlDatabase(name('kysely_mysql')),
          connectionLimit: 4,
        });
        const db = new Kysely<unknown>({ dialect: new MysqlDialect({ pool }) });
        return { db: fromKysely(db), close: () => db.destroy() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Kysely, SQLite file',
      async () => {
        const db = new Kysely<unknown>({
          dialect: new SqliteDialect({ database: sqliteDb('kysely') }),
        });
        return { db: fromKysely(db), close: () => db.destroy() };
      },
      { serverLockTimeout: false },
    ],
    [
      'Drizzle over node-postgres',
      async () => {
        const pool = await pgPool('drizzle_pg');
        return { db: fromDrizzle(drizzlePg(pool)), close: () => pool.end() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Drizzle over postgres-js',
      async () => {
        const client = postgres(await pgDatabase(name('drizzle_pgjs')), {
          max: 4,
          onnotice: () => undefined,
        });
        return { db: fromDrizzle(drizzlePostgresJs(client)), close: () => client.end() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Drizzle over mysql2, MariaDB',
      async () => {
        const pool = await mysqlPool('drizzle_mysql');
        return { db: fromDrizzle(drizzleMysql(pool)), close: () => pool.end() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Drizzle over better-sqlite3 file',
      async () => {
        const client = sqliteDb('drizzle');
        return { db: fromDrizzle(drizzleSqlite(client)), close: async () => void client.close() };
      },
      { serverLockTimeout: false },
    ],
    [
      'Drizzle over libSQL in memory',
      async () => {
        const client = createLibsqlClient({ url: ':memory:' });
        return { db: fromDrizzle(drizzleLibsql({ client })), close: async () => client.close() };
      },
      { serverLockTimeout: false },
    ],
    [
      'Prisma over adapter-pg',
      async () => {
        const prisma = new PrismaPostgres({
          adapter: new PrismaPg({ connectionString: await pgDatabase(name('prisma_pg')), max: 4 }),
        });
        return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Prisma over adapter-mariadb',
      async () => {
        const prisma = new PrismaMysql({
          adapter: new PrismaMariaDb(mariadbConfigOf(await mysqlDatabase(name('prisma_mysql')), 4)),
        });
        return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
      },
      { serverLockTimeout: true },
    ],
    [
      'Prisma over adapter-better-sqlite3 file',
      async () => {
        const prisma = new PrismaSqlite({
          adapter: new PrismaBetterSqlite3({ url: `file:${sqliteFile(`${tag}-prisma`)}` }),
        });
        return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
      },
      { serverLockTimeout: false },
    ],
    [
      'postgres-js',
      async () => {
        const sql = postgres(await pgDatabase(name('pgjs')), { max: 4, onnotice: () => undefined });
        return { db: fromPostgres(sql), close: () => sql.end() };
      },
      { serverLockTimeout: true },
    ],
  ];
}

/**
 * `[name, open]` for every kind of connection: the seven drivers and knex ({@link driverKinds})
 * and the ORM connections ({@link ormKinds}); `tag` keeps databases and files apart per test file.
 */
export function connectionKinds(
  tag: string,
): Array<[string, () => Promise<OpenedKind>, KindCapabilities]> {
  // `pnpm test` runs one ORM per database (CI's 10 minutes); `pnpm test:proof` runs every one.
  const orms = ormKinds(tag);
  return [
    ...driverKinds(tag),
    ...(process.env.WI_PROOF ? orms : orms.filter(([name]) => ORM_SAMPLE.includes(name))),
  ];
}

/** One ORM per database, for the suites `pnpm test` runs on every connection kind. */
export const ORM_SAMPLE = [
  'Kysely, PostgreSQL',
  'Prisma over adapter-mariadb',
  'Drizzle over better-sqlite3 file',
];

/** `[name, open]` for each of the seven driver and knex connection kinds. */
export function driverKinds(
  tag: string,
): Array<[string, () => Promise<OpenedKind>, KindCapabilities]> {
  const name = (kind: string) => `wi_${tag.replace(/[^a-z0-9]/gi, '_')}_${kind}`.toLowerCase();
  return [
    [
      'pg Pool',
      async () => {
        const db = new pg.Pool({ connectionString: await pgDatabase(name('pg')), max: 4 });
        return { db, close: () => db.end() };
      },
      { serverLockTimeout: true },
    ],
    [
      'knex, PostgreSQL',
      async () => {
        const db = knex({
          client: 'pg',
          connection: connectionOf(await pgDatabase(name('knex_pg'))),
          pool: { min: 0, max: 4 },
        });
        return { db, close: () => db.destroy() };
      },
      { serverLockTimeout: true },
    ],
    [
      'mysql2 promise pool, MariaDB',
      async () => {
        const db = mysqlPromise.createPool({
          uri: await mysqlDatabase(name('mysql2')),
          connectionLimit: 4,
        });
        return { db, close: () => db.end() };
      },
      { serverLockTimeout: true },
    ],
    [
      'mysql2 callback pool, MariaDB',
      async () => {
        const db = mysql.createPool({
          uri: await mysqlDatabase(name('mysql2_cb')),
          connectionLimit: 4,
          flags: ['-FOUND_ROWS'],
        });
        return {
          db,
          close: () =>
            new Promise<void>((resolve, reject) =>
              db.end((error) => (error ? reject(error) : resolve())),
            ),
        };
      },
      { serverLockTimeout: true },
    ],
    [
      'knex, MariaDB',
      async () => {
        const db = knex({
          client: 'mysql2',
          connection: connectionOf(await mysqlDatabase(name('knex_mysql'))),
          pool: { min: 0, max: 4 },
        });
        return { db, close: () => db.destroy() };
      },
      { serverLockTimeout: true },
    ],
    [
      'better-sqlite3 file',
      async () => {
        const db = new Database(sqliteFile(tag));
        db.pragma('journal_mode = WAL');
        return { db, close: async () => void db.close() };
      },
      { serverLockTimeout: false },
    ],
    [
      'knex, SQLite file',
      async () => {
        const db = knex({
          client: 'better-sqlite3',
          connection: { filename: sqliteFile(`${tag}-knex`) },
          useNullAsDefault: true,
        });
        return { db, close: () => db.destroy() };
      },
      { serverLockTimeout: false },
    ],
  ];
}
