/** @module PostgreSQL's row of the dialect table: every fragment its statements are built from. */
import { numbered, standardSql } from './shared';
import type { DialectSpec } from './spec';

const PG_NOW = "date_trunc('milliseconds', statement_timestamp())";
/** How much later than the guard's deadline the server ends an idle transaction: only a frozen or cut-off process gets there. */
const SERVER_IDLE_MARGIN_MS = 1000;

/** PostgreSQL (tested on 15). */
export const postgres: DialectSpec = {
  name: 'postgres',
  ...standardSql,
  // COLLATE "C": byte-wise equality and ordering, whatever the database's locale.
  types: { key: 'VARCHAR(160) COLLATE "C"', response: 'TEXT', timestamp: 'TIMESTAMPTZ(3)' },
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
  // The read sees the statement's snapshot: a row committed meanwhile by a racing claim is not
  // in it, and the store then reads again.
  claimOrRead: (insert, read) =>
    `WITH claimed AS (${insert}) SELECT * FROM claimed UNION ALL ${read} AND NOT EXISTS (SELECT 1 FROM claimed)`,
  duplicateKeyCodes: new Set(['23505']),
  missingTable: { codes: new Set(['42P01']) },
  // deadlock_detected, serialization_failure.
  deadlockCodes: new Set(['40P01', '40001']),
  singleWriter: false,
  // Lock waits end at the deadline, and a transaction left idle a little past it (its process
  // frozen or cut off, so the guard's own timer could not end it) is ended by the server, so a
  // takeover never waits on its row locks.
  transactionBounds: (timeoutMs) => {
    const ms = Math.max(1, Math.ceil(timeoutMs));
    return [
      `SET LOCAL lock_timeout = ${ms}`,
      `SET LOCAL idle_in_transaction_session_timeout = ${ms + SERVER_IDLE_MARGIN_MS}`,
    ];
  },
  placeholders: numbered,
  inbox: {
    idColumn: 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
    bytes: 'BYTEA',
    text: 'TEXT',
    plusMs: (expression) =>
      `(${expression} + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond')`,
    lockClause: (skipLocked) => (skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE'),
    // SET LOCAL, as one parameterless statement: all end with the claim's transaction. No sort:
    // the claim must read the unfinished rows in id order from their partial index and stop at
    // its limit. Table statistics lag a burst (a backlog stored in seconds, not yet analyzed), and
    // then the planner reads every unfinished row to sort them, costing each claim as much as the
    // whole backlog.
    boundLease: (select, ms) => ({
      setup: `SELECT set_config('lock_timeout', '${ms}', true), set_config('statement_timeout', '${ms}', true), set_config('enable_sort', 'off', true)`,
      select,
    }),
    unfinished: { partialIndex: true },
  },
};
