/**
 * Per-test-file databases on the servers jest's global setup started (WI_PG_URL, WI_MYSQL_URL),
 * and SQLite files in the run's temporary folder. A missing server is an error, never a skip.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';

function env(name: 'WI_PG_URL' | 'WI_MYSQL_URL'): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: run the SQL tests through jest, whose global setup starts the servers`,
    );
  return value;
}

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

/** A fresh, empty PostgreSQL database named `database`; returns its URL. */
export async function pgDatabase(database: string): Promise<string> {
  const admin = new pg.Client({ connectionString: env('WI_PG_URL') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(env('WI_PG_URL'), database);
}

/** A fresh, empty MariaDB database named `database` (utf8mb4); returns its URL. */
export async function mysqlDatabase(database: string): Promise<string> {
  const admin = await mysql.createConnection(env('WI_MYSQL_URL'));
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  } finally {
    await admin.end();
  }
  return withDatabase(env('WI_MYSQL_URL'), database);
}

/** A path for a new SQLite file, in a folder of its own. */
export function sqliteFile(name: string): string {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'sqlite-'));
  return join(dir, `${name}.db`);
}

/** knex connection settings from a server URL. */
export function connectionOf(url: string): {
  host: string;
  port: number;
  user: string;
  database: string;
} {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port),
    user: parsed.username,
    database: parsed.pathname.slice(1),
  };
}

/** Pool settings of the \`mariadb\` driver (Prisma's adapter-mariadb) from a server URL. */
export function mariadbConfigOf(
  url: string,
  connectionLimit: number,
): ReturnType<typeof connectionOf> & { password: string; connectionLimit: number } {
  return {
    ...connectionOf(url),
    password: decodeURIComponent(new URL(url).password),
    connectionLimit,
  };
}
