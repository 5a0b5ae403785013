/** @module SQLite's row of the dialect table (better-sqlite3, node:sqlite, bun:sqlite, libSQL, D1). */
import { standardSql } from './shared';
import type { DialectSpec } from './spec';

// julianday('now') is exact to the millisecond; 210866760000000 ms is the Julian day of the Unix epoch.
const SQLITE_NOW_MS = "(CAST(ROUND(julianday('now') * 86400000.0) AS INTEGER) - 210866760000000)";

/** SQLite (3.35 or later: `RETURNING`). */
export const sqlite: DialectSpec = {
  name: 'sqlite',
  ...standardSql,
  types: { key: 'VARCHAR(160)', response: 'TEXT', timestamp: 'INTEGER' },
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
  singleWriter: true,
  // Its busy timeout bounds the waits: nothing to set inside the transaction.
  transactionBounds: () => [],
  placeholders: (sql) => sql,
  inbox: {
    // AUTOINCREMENT: an id is never reused, even after the newest rows were purged.
    idColumn: 'id INTEGER PRIMARY KEY AUTOINCREMENT',
    bytes: 'BLOB',
    text: 'TEXT',
    plusMs: (expression) => `(${expression} + ?)`,
    lockClause: () => '',
    // The claim's BEGIN IMMEDIATE waits the connection's busy timeout for another process's write
    // lock, and this process's own transactions at most `acquireTimeoutMs`.
    boundLease: (select) => ({ setup: null, select }),
    // Without it the planner reads every due row through (status, available_at) and sorts them.
    unfinished: { partialIndex: true, hint: ({ open }) => ` INDEXED BY ${open}` },
  },
};
