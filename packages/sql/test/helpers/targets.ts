/**
 * One database seen from several processes: how the test and its child processes open the same
 * PostgreSQL database, MariaDB database or SQLite file with the raw driver.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { SqlConnection, SqlDialect } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import type { Executor } from '../../src/connections/executor';

/** A database: a server URL, or for SQLite the file's path. */
export interface Target {
  readonly dialect: SqlDialect;
  readonly url: string;
}

/** A raw-driver connection to a target, with an executor for the test's own `?` statements. */
export interface Connected {
  readonly db: SqlConnection;
  readonly sql: Executor;
  close(): Promise<void>;
}

/** Opens `target` with its raw driver (pg Pool, mysql2 promise pool, better-sqlite3 in WAL mode). */
export function connect(target: Target): Connected {
  let db: SqlConnection;
  let close: () => Promise<void>;
  if (target.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    db = pool;
    close = () => pool.end();
  } else if (target.dialect === 'mysql') {
    const pool = mysql.createPool({ uri: target.url, connectionLimit: 10 });
    db = pool;
    close = () => pool.end();
  } else {
    const file = new Database(target.url, { timeout: 20_000 });
    file.pragma('journal_mode = WAL');
    db = file;
    close = async () => void file.close();
  }
  return { db, sql: createExecutor(db, 20_000), close };
}

/** Creates the side-effect table the handlers of the multi-process tests write to. */
export async function createEffects(sql: Executor, table: string): Promise<void> {
  await sql.query(
    `CREATE TABLE ${table} (id VARCHAR(200) NOT NULL, written_by INTEGER NOT NULL, PRIMARY KEY (id))`,
    [],
  );
}
