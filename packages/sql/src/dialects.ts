/**
 * @module The one table of dialect differences. Every statement of the store is written once
 * (queries.ts, schema.ts) from these fragments; nothing else in the package knows a dialect.
 *
 * Time: every timestamp comes from the database clock, to the millisecond, so app servers with
 * skewed clocks agree on staleness. PostgreSQL stores `TIMESTAMPTZ(3)`, MySQL/MariaDB
 * `DATETIME(3)` in UTC, SQLite an `INTEGER` of milliseconds since the Unix epoch (UTC). Reads
 * convert both the column and "now" to epoch milliseconds in the same statement.
 */
import type { SqlDialect } from './types';

/** The per-dialect fragments the statements are built from. */
export interface DialectSpec {
  readonly name: SqlDialect;
  /** Quotes an identifier that was already validated as `[A-Za-z_][A-Za-z0-9_]*`. */
  quote(identifier: string): string;
  /** Column types. */
  readonly types: { readonly key: string; readonly response: string; readonly timestamp: string };
  /** Appended to `CREATE TABLE (...)`. */
  readonly tableOptions: string;
  /** Secondary indexes go inside `CREATE TABLE` (MySQL has no `CREATE INDEX IF NOT EXISTS`). */
  readonly inlineIndexes: boolean;
  /** The database's "now", as a value for a timestamp column. Constant within one statement. */
  readonly now: string;
  /** The database's "now" in epoch milliseconds (a number), equal to `toMs(now)`. */
  readonly nowMs: string;
  /**
   * A timestamp column as whole epoch milliseconds (truncated toward zero, as a JS `Date` does);
   * `NULL` stays `NULL`. The reads return it, and `complete`/`fail` compare it with the claim time
   * the reads returned, so it must be exact: the same expression on both sides, whatever
   * precision the column has (a µs `TIMESTAMPTZ` made by a user's own migration included).
   */
  toMs(column: string): string;
  /** A timestamp expression minus `?` milliseconds (one placeholder). */
  minusMs(expression: string): string;
  /**
   * The time `?` epoch milliseconds (one placeholder, from 1970 to 9999) as a value of the
   * timestamp columns' type: a condition such as `received_at >= <atMs>` compares the column
   * as stored, so an index on it serves the condition (`toMs(column) >= ?` would read every row).
   */
  readonly atMs: string;
  /**
   * A timestamp column exactly as stored, as text: ISO 8601 in UTC with six fractional digits
   * (`2026-12-01T21:59:14.601000Z`), whatever the column's precision (a µs column keeps its µs). A
   * listing's cursor carries it, so that the next page starts exactly after the row it names.
   */
  timeText(column: string): string;
  /** A {@link DialectSpec.timeText} value as a value of the timestamp columns' type (one placeholder, bound with `bindTimeText`). */
  readonly atText: string;
  /** The bound value of {@link DialectSpec.atText} for a `timeText` value (checked before: `YYYY-MM-DDTHH:MM:SS.ffffffZ`). */
  bindTimeText(text: string): unknown;
  /** One row when `table` has an index named so (in the schemas the session reads). Params: table, index. */
  readonly indexExists: string;
  /**
   * A non-negative epoch-milliseconds expression (a {@link DialectSpec.toMs} result) divided by
   * `?` and rounded down to a whole number (one placeholder): the bucket of a time series.
   */
  bucketOf(expression: string): string;
  /** Appended to the claim `INSERT` so that the unique index decides silently; empty where the duplicate-key error does. */
  readonly onConflictDoNothing: string;
  /** Supports `INSERT/UPDATE … RETURNING`, which saves a round trip. */
  readonly returning: boolean;
  /**
   * Without `RETURNING`: the claim `INSERT` hands back its claim time (epoch ms, the database
   * clock) as the statement's insert id, through `LAST_INSERT_ID(expr)`, so a won claim needs no
   * read-back: a first delivery is two statements (claim, complete). The expression to put where
   * the `INSERT` writes `attempts = 1`.
   */
  readonly attemptsReturningClaimTime?: string;
  /**
   * Joins the claim `INSERT … RETURNING` and the read of an existing row into one statement, so a
   * duplicate costs one round trip. Its parameters are the insert's, then the read's.
   */
  claimOrRead?(insert: string, read: string): string;
  /**
   * A `DELETE` of at most `batchSize` rows matching `where`. The whole of `where` must hold on
   * every row the statement removes, also on a row that changed while the DELETE waited for its
   * lock (a receipt taken over, or taken over and completed again, since the batch was chosen).
   */
  deleteBatch(table: string, where: string): BatchDelete;
  /** Error codes (`code` or `errno`) of a unique-index violation. */
  readonly duplicateKeyCodes: ReadonlySet<string | number>;
  /**
   * How the driver reports a table that does not exist: its `code`/`errno`, and for a dialect
   * whose code is generic (SQLite's `SQLITE_ERROR`), the message that must go with it.
   */
  readonly missingTable: {
    readonly codes: ReadonlySet<string | number>;
    readonly message?: RegExp;
  };
  /**
   * A statement that takes the write lock at the start of a transaction, for drivers that cannot
   * `BEGIN IMMEDIATE` themselves (knex on SQLite): other processes then wait at `BEGIN`, not fail
   * with `SQLITE_BUSY` at their first write.
   */
  lockForWrite?(table: string): string;
  /**
   * Error codes (`code`, `errno` or SQLSTATE) of a statement the database chose as a deadlock
   * victim, or failed on a serialization conflict: run on its own, it can run again unchanged.
   */
  readonly deadlockCodes: ReadonlySet<string | number>;
}

/** A batch `DELETE` and the order of its parameters. */
export interface BatchDelete {
  readonly sql: string;
  /** The statement's parameters, from those of its `where` and the batch size. */
  params(whereParams: readonly unknown[], batchSize: number): unknown[];
}

const doubleQuote = (identifier: string) => `"${identifier}"`;
const PG_NOW = "date_trunc('milliseconds', statement_timestamp())";
// julianday('now') is exact to the millisecond; 210866760000000 ms is the Julian day of the Unix epoch.
const SQLITE_NOW_MS = "(CAST(ROUND(julianday('now') * 86400000.0) AS INTEGER) - 210866760000000)";
const MYSQL_EPOCH_MS = (column: string) =>
  `(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${column}) DIV 1000)`;
// The whole condition sits on the DELETE itself, not only in the subquery that picks the batch:
// PostgreSQL re-evaluates only the outer WHERE on the latest version of a row it had to wait for
// (never the IN subquery). A receipt taken over meanwhile (`processing`), or taken over and
// finished again (`completed` with a fresh `finished_at`), then no longer matches and stays.
// SQLite runs the statement under its database-wide write lock, so nothing changes in between;
// it gets the same statement for one code path.
const keyedBatch = (table: string, where: string): BatchDelete => ({
  sql: `DELETE FROM ${table} WHERE ${where} AND (provider, external_id) IN (SELECT provider, external_id FROM ${table} WHERE ${where} LIMIT ?)`,
  params: (whereParams, batchSize) => [...whereParams, ...whereParams, batchSize],
});

/** Every dialect, by name. */
export const dialects: Readonly<Record<SqlDialect, DialectSpec>> = {
  postgres: {
    name: 'postgres',
    quote: doubleQuote,
    // COLLATE "C": byte-wise equality and ordering, whatever the database's locale.
    types: { key: 'VARCHAR(160) COLLATE "C"', response: 'TEXT', timestamp: 'TIMESTAMPTZ(3)' },
    tableOptions: '',
    inlineIndexes: false,
    now: PG_NOW,
    nowMs: `CAST(EXTRACT(EPOCH FROM ${PG_NOW}) * 1000 AS DOUBLE PRECISION)`,
    // EXTRACT(EPOCH …) is numeric (exact); TRUNC drops the µs a column wider than (3) may hold.
    toMs: (column) => `CAST(TRUNC(EXTRACT(EPOCH FROM ${column}) * 1000) AS DOUBLE PRECISION)`,
    minusMs: (expression) =>
      `(${expression} - CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond')`,
    atMs: "(CAST('1970-01-01 00:00:00+00' AS TIMESTAMPTZ) + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond')",
    timeText: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    // ISO 8601 with its Z: read as UTC whatever the session's TimeZone.
    atText: 'CAST(? AS TIMESTAMPTZ)',
    bindTimeText: (text) => text,
    indexExists:
      'SELECT 1 AS present FROM pg_indexes WHERE tablename = ? AND indexname = ? ' +
      'AND schemaname = ANY (current_schemas(false))',
    bucketOf: (expression) => `FLOOR(${expression} / CAST(? AS DOUBLE PRECISION))`,
    onConflictDoNothing: ' ON CONFLICT (provider, external_id) DO NOTHING',
    returning: true,
    // The read sees the statement's snapshot: a row committed meanwhile by a racing claim is not
    // in it, and the store then reads again.
    claimOrRead: (insert, read) =>
      `WITH claimed AS (${insert}) SELECT * FROM claimed UNION ALL ${read} AND NOT EXISTS (SELECT 1 FROM claimed)`,
    deleteBatch: keyedBatch,
    duplicateKeyCodes: new Set(['23505']),
    missingTable: { codes: new Set(['42P01']) },
    // deadlock_detected, serialization_failure.
    deadlockCodes: new Set(['40P01', '40001']),
  },
  mysql: {
    name: 'mysql',
    quote: (identifier) => `\`${identifier}\``,
    // VARBINARY, not VARCHAR: every utf8mb4 *_bin collation of MariaDB and MySQL 5.7 is PAD SPACE,
    // so 'x' and 'x ' would collide in the unique index. Bytes compare exactly; 640 bytes is 160
    // four-byte characters, the RequestKey limit.
    types: { key: 'VARBINARY(640)', response: 'MEDIUMTEXT', timestamp: 'DATETIME(3)' },
    tableOptions: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    inlineIndexes: true,
    // DATETIME has no time zone: store UTC, so the session's time_zone never matters.
    now: 'UTC_TIMESTAMP(3)',
    nowMs: MYSQL_EPOCH_MS('UTC_TIMESTAMP(3)'),
    toMs: MYSQL_EPOCH_MS,
    minusMs: (expression) => `(${expression} - INTERVAL (? * 1000) MICROSECOND)`,
    // A DATETIME in UTC, as the columns hold (FROM_UNIXTIME would read the session's time_zone).
    atMs: "(CAST('1970-01-01 00:00:00' AS DATETIME(3)) + INTERVAL (? * 1000) MICROSECOND)",
    timeText: (column) => `DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.%fZ')`,
    // A DATETIME literal of UTC, as the columns hold: no zone suffix (MariaDB reads none).
    atText: 'CAST(? AS DATETIME(6))',
    bindTimeText: (text) => text.replace('T', ' ').replace('Z', ''),
    indexExists:
      'SELECT 1 AS present FROM information_schema.STATISTICS ' +
      'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1',
    bucketOf: (expression) => `FLOOR(${expression} / ?)`,
    // A plain INSERT: its duplicate-key error is the "lost" signal. INSERT IGNORE would also turn
    // other errors (a value too long in strict mode) into warnings.
    onConflictDoNothing: '',
    returning: false,
    // UTC_TIMESTAMP(3) is one value for the whole statement: the claimed_at the row gets.
    attemptsReturningClaimTime: `(LAST_INSERT_ID(${MYSQL_EPOCH_MS('UTC_TIMESTAMP(3)')}) * 0 + 1)`,
    // A single-table DELETE takes each row's lock, then evaluates its whole WHERE on the row's
    // latest committed version (a locking read), so a row changed meanwhile is judged as it is now.
    deleteBatch: (table, where) => ({
      sql: `DELETE FROM ${table} WHERE ${where} LIMIT ?`,
      params: (whereParams, batchSize) => [...whereParams, batchSize],
    }),
    duplicateKeyCodes: new Set(['ER_DUP_ENTRY', 1062]),
    missingTable: { codes: new Set(['ER_NO_SUCH_TABLE', 1146]) },
    // ER_LOCK_DEADLOCK (SQLSTATE 40001). A lock wait timeout (1205) is not one: it ran its bound.
    deadlockCodes: new Set(['ER_LOCK_DEADLOCK', 1213, '40001']),
  },
  sqlite: {
    name: 'sqlite',
    quote: doubleQuote,
    types: { key: 'VARCHAR(160)', response: 'TEXT', timestamp: 'INTEGER' },
    tableOptions: '',
    inlineIndexes: false,
    now: SQLITE_NOW_MS,
    nowMs: SQLITE_NOW_MS,
    toMs: (column) => column,
    minusMs: (expression) => `(${expression} - ?)`,
    atMs: '?',
    // Whole milliseconds, by integer arithmetic (a float of seconds could round a millisecond off).
    timeText: (column) =>
      `strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || '.' || ` +
      `substr('00' || (${column} % 1000), -3) || '000Z'`,
    atText: '?',
    // Epoch milliseconds, with the µs as a fraction: the integer column compares with it exactly.
    bindTimeText: (text) => Date.parse(`${text.slice(0, 23)}Z`) + Number(text.slice(23, 26)) / 1000,
    indexExists:
      "SELECT 1 AS present FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?",
    // Integer by integer: SQLite divides whole numbers whole (FLOOR needs its math functions).
    bucketOf: (expression) => `(${expression} / CAST(? AS INTEGER))`,
    onConflictDoNothing: ' ON CONFLICT (provider, external_id) DO NOTHING',
    returning: true,
    deleteBatch: keyedBatch,
    // better-sqlite3's codes; node:sqlite reports ERR_SQLITE_ERROR with the extended result code
    // in `errcode` (1555 SQLITE_CONSTRAINT_PRIMARYKEY, 2067 SQLITE_CONSTRAINT_UNIQUE).
    duplicateKeyCodes: new Set([
      'SQLITE_CONSTRAINT_PRIMARYKEY',
      'SQLITE_CONSTRAINT_UNIQUE',
      1555,
      2067,
    ]),
    // better-sqlite3 says SQLITE_ERROR, node:sqlite ERR_SQLITE_ERROR; both are generic.
    missingTable: {
      codes: new Set(['SQLITE_ERROR', 'ERR_SQLITE_ERROR']),
      message: /no such table/,
    },
    // A write that matches nothing still takes SQLite's write lock.
    lockForWrite: (table) => `UPDATE ${table} SET attempts = attempts WHERE 0 = 1`,
    // One writer at a time: SQLite reports no deadlocks (a busy database is SQLITE_BUSY).
    deadlockCodes: new Set(),
  },
};

function hasCode(codes: ReadonlySet<string | number>, error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno, errcode, sqlState } = error as {
    code?: unknown;
    errno?: unknown;
    errcode?: unknown;
    sqlState?: unknown;
  };
  return (
    (typeof code === 'string' && codes.has(code)) ||
    (typeof sqlState === 'string' && codes.has(sqlState)) ||
    (typeof errno === 'number' && codes.has(errno)) ||
    (typeof errcode === 'number' && codes.has(errcode))
  );
}

/** True when `error` is a unique-index violation of `dialect`. */
export function isDuplicateKey(dialect: DialectSpec, error: unknown): boolean {
  return hasCode(dialect.duplicateKeyCodes, error);
}

/** True when `error` says that the statement's table does not exist. */
export function isMissingTable(dialect: DialectSpec, error: unknown): boolean {
  const { codes, message } = dialect.missingTable;
  // Not `instanceof Error`: a driver's error class may come from another realm (a test sandbox).
  const text = (error as { message?: unknown } | null)?.message;
  return hasCode(codes, error) && (!message || (typeof text === 'string' && message.test(text)));
}

/** True when `error` says the statement lost a deadlock or a serialization conflict and may simply run again. */
export function isDeadlock(dialect: DialectSpec, error: unknown): boolean {
  return hasCode(dialect.deadlockCodes, error);
}
