/**
 * @module Every kind of connection SqlStore accepts, opened on a database (or SQLite file) of its
 * own: for regression tests that must hold on each of them.
 */
import Database from 'better-sqlite3';
import knex from 'knex';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import pg from 'pg';
import type { SqlConnection } from '../../src';
import { connectionOf, mysqlDatabase, pgDatabase, sqliteFile } from './databases';

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
  if (typeof handle === 'function' && typeof h.raw === 'function') return h.raw(sql, params); // knex
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

/** `[name, open]` for each of the seven connection kinds; `tag` keeps databases and files apart per test file. */
export function connectionKinds(
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
