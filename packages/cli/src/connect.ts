/**
 * @module From `--url` / `DATABASE_URL` to an open connection: the dialect from the URL's scheme,
 * the driver loaded on demand (an optional peer), and a description of the target that never
 * shows the password.
 */
import type { SqlConnection, SqlDialect } from '@webhook-idempotency/sql';
import { CliError, ExitCode } from './exit-codes';

/** Where the receipts are, as parsed from the URL. */
export interface Target {
  readonly dialect: SqlDialect;
  /** The URL (server dialects) or the file path (SQLite). */
  readonly location: string;
  /** The target for messages: the URL without its password, or `sqlite:<path>`. */
  readonly display: string;
  /** The password, to keep it out of any message that might repeat it; `''` when there is none. */
  readonly secret: string;
}

/** An open connection and how to close it. */
export interface Opened {
  readonly db: SqlConnection;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5000;
const SERVER_SCHEMES: Record<string, SqlDialect> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
};
const SQLITE_FILE = /\.(db|sqlite|sqlite3)$/i;

/**
 * Parses a database URL: `postgres://…`, `postgresql://…`, `mysql://…`, `mariadb://…`,
 * `sqlite:path/to/file.db` (also `sqlite://` followed by a path), or a bare path ending in `.db`,
 * `.sqlite` or `.sqlite3`.
 * @throws {CliError} `USAGE` when `url` is missing or none of those.
 */
export function parseTarget(url: string | undefined): Target {
  if (!url)
    throw new CliError(
      ExitCode.USAGE,
      'No database given: pass --url or set DATABASE_URL (postgres://…, mysql://…, mariadb://… or sqlite:path/to/file.db).',
    );
  if (/^sqlite:/i.test(url)) {
    const path = url.replace(/^sqlite:(\/\/)?/i, '');
    if (!path)
      throw new CliError(ExitCode.USAGE, 'sqlite: needs a file path, as in sqlite:app.db.');
    return { dialect: 'sqlite', location: path, display: `sqlite:${path}`, secret: '' };
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && SQLITE_FILE.test(url))
    return { dialect: 'sqlite', location: url, display: `sqlite:${url}`, secret: '' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(ExitCode.USAGE, unsupported(withoutCredentials(url)));
  }
  const dialect = SERVER_SCHEMES[parsed.protocol];
  // The password in the user part, or as a `password` query parameter.
  const secret = decodeURIComponent(parsed.password) || (parsed.searchParams.get('password') ?? '');
  parsed.password = '';
  parsed.searchParams.delete('password');
  if (!dialect) throw new CliError(ExitCode.USAGE, unsupported(parsed.toString()));
  return { dialect, location: url, display: parsed.toString(), secret };
}

function unsupported(shown: string): string {
  return `Unsupported database URL ${shown}: use postgres://…, mysql://…, mariadb://… or sqlite:path/to/file.db.`;
}

/** `message` with the target's password replaced by `***` (when it is long enough to be recognisable). */
/**
 * A URL that did not parse, with everything between the scheme and the last `@` masked: the
 * password may hold `/`, `:` or `@`, so no narrower pattern can be trusted to find its end.
 */
export function withoutCredentials(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  return at < 0 ? url : `${scheme}***@${rest.slice(at + 1)}`;
}

export function redact(target: Target, message: string): string {
  return target.secret.length >= 3 ? message.split(target.secret).join('***') : message;
}

/** The npm package each dialect's driver comes from. */
export const DRIVER_PACKAGE: Record<SqlDialect, string> = {
  postgres: 'pg',
  mysql: 'mysql2',
  sqlite: 'better-sqlite3',
};

const isModuleMissing = (error: unknown, name: string): boolean => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}`)
  );
};

/** Loads an optional peer driver, or says which package to install. */
async function load<T>(dialect: SqlDialect, importer: () => Promise<unknown>): Promise<T> {
  const name = DRIVER_PACKAGE[dialect];
  try {
    const loaded = (await importer()) as { default?: unknown };
    return (loaded.default ?? loaded) as T;
  } catch (error) {
    if (!isModuleMissing(error, name)) throw error;
    throw new CliError(
      ExitCode.CONNECTION,
      `The ${dialect === 'mysql' ? 'MySQL/MariaDB' : dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} driver is not installed: npm install ${name}`,
      { cause: error },
    );
  }
}

/**
 * Opens `target` with a small pool (the command runs a few statements). A SQLite file must exist
 * unless `create` is set (`migrate`); server connections fail after a few seconds, not hang.
 * @throws {CliError} `CONNECTION` when the driver is missing or the SQLite file cannot be opened.
 */
export async function open(target: Target, { create = false } = {}): Promise<Opened> {
  if (target.dialect === 'postgres') {
    const pg = await load<typeof import('pg')>('postgres', () => import('pg'));
    const pool = new pg.Pool({
      connectionString: target.location,
      max: 2,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // An idle client's error (the server went away) must not crash the command.
    pool.on('error', () => undefined);
    return { db: pool, close: () => pool.end() };
  }
  if (target.dialect === 'mysql') {
    const mysql = await load<typeof import('mysql2/promise')>(
      'mysql',
      () => import('mysql2/promise'),
    );
    const uri = target.location.replace(/^mariadb:/i, 'mysql:');
    const pool = mysql.createPool({ uri, connectionLimit: 2, connectTimeout: CONNECT_TIMEOUT_MS });
    return { db: pool, close: () => pool.end() };
  }
  const Database = await load<typeof import('better-sqlite3')>(
    'sqlite',
    () => import('better-sqlite3'),
  );
  try {
    const db = new Database(target.location, {
      fileMustExist: !create,
      timeout: CONNECT_TIMEOUT_MS,
    });
    return { db, close: async () => void db.close() };
  } catch (error) {
    throw new CliError(
      ExitCode.CONNECTION,
      `Cannot open the SQLite file ${target.location}: ${(error as Error).message}${create ? '' : ' (webhook-idempotency migrate creates it)'}`,
      { cause: error },
    );
  }
}
