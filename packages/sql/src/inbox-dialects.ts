/**
 * @module What the inbox table needs beyond dialects.ts, per dialect: an increasing id, a bytes
 * column, "now plus n milliseconds" and the claim's row lock. Everything else (quoting, key and
 * time types, "now", the duplicate-key codes, batch deletes) comes from the one table in
 * dialects.ts; inbox-schema.ts and inbox-queries.ts build every statement from both.
 */
import type { SqlDialect } from './types';

/** The inbox's per-dialect fragments. */
export interface InboxDialectSpec {
  /** The `id` column with its primary key: increasing in insert order. */
  readonly idColumn: string;
  /** The type of the `body` column: the request bytes, unchanged. */
  readonly bytes: string;
  /** The type of the `headers` column (JSON text). */
  readonly text: string;
  /** A timestamp expression plus `?` milliseconds (one placeholder). */
  plusMs(expression: string): string;
  /**
   * Appended to the claim's `SELECT`: lock the rows it picks and skip those another worker's claim
   * holds (`skipLocked`), or wait for them. `''` where a claim already holds the only write lock
   * (SQLite: `BEGIN IMMEDIATE`).
   */
  lockClause(skipLocked: boolean): string;
  /**
   * Bounds the claim to `ms` (whole milliseconds): its waits on locks (the table lock a migration
   * takes) and its run. `setup` runs first in the claim's transaction; `select` is the claim's
   * SELECT as it is sent. Where neither can say it (SQLite), the busy timeout is the bound.
   */
  boundClaim(
    select: string,
    ms: number,
  ): { readonly setup: string | null; readonly select: string };
  /**
   * How the claim reads the unfinished deliveries in id order without walking the finished ones:
   * from a partial index over them (`partialIndex`, the `_open_idx` the schema then creates), or
   * from `(finished_at, id)` where partial indexes do not exist. `hint`, when given, goes after
   * the table in the claim's FROM and names the index (quoted) the planner must use.
   */
  readonly unfinished: {
    readonly partialIndex: boolean;
    hint?(indexes: { readonly open: string; readonly finished: string }): string;
  };
}

/** Every dialect's inbox fragments, by name. */
export const inboxDialects: Readonly<Record<SqlDialect, InboxDialectSpec>> = {
  postgres: {
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
    boundClaim: (select, ms) => ({
      setup: `SELECT set_config('lock_timeout', '${ms}', true), set_config('statement_timeout', '${ms}', true), set_config('enable_sort', 'off', true)`,
      select,
    }),
    unfinished: { partialIndex: true },
  },
  mysql: {
    idColumn: 'id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY',
    bytes: 'LONGBLOB',
    text: 'MEDIUMTEXT',
    plusMs: (expression) => `(${expression} + INTERVAL (? * 1000) MICROSECOND)`,
    // SKIP LOCKED: MySQL 8.0.1+, MariaDB 10.6+. Older servers reject it as a syntax error.
    lockClause: (skipLocked) => (skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE'),
    // For this statement only (the pooled connection's session is the application's): MariaDB
    // runs the `/*M!` comment, `SET STATEMENT … FOR`, and ignores the hint; MySQL ignores the
    // comment and reads the hint. Metadata locks (LOCK TABLES, ALTER) wait `lock_wait_timeout`,
    // row locks `innodb_lock_wait_timeout`, both in whole seconds.
    boundClaim: (select, ms) => {
      const s = Math.max(1, Math.ceil(ms / 1000));
      return {
        setup: null,
        select:
          `/*M!SET STATEMENT max_statement_time=${s}, lock_wait_timeout=${s}, innodb_lock_wait_timeout=${s} FOR*/ ` +
          select.replace(
            /^SELECT /,
            `SELECT /*+ SET_VAR(lock_wait_timeout=${s}) SET_VAR(innodb_lock_wait_timeout=${s}) */ `,
          ),
      };
    },
    // No partial indexes: the optimizer is told to walk (finished_at, id) from NULL, in id order.
    unfinished: { partialIndex: false, hint: ({ finished }) => ` FORCE INDEX (${finished})` },
  },
  sqlite: {
    // AUTOINCREMENT: an id is never reused, even after the newest rows were purged.
    idColumn: 'id INTEGER PRIMARY KEY AUTOINCREMENT',
    bytes: 'BLOB',
    text: 'TEXT',
    plusMs: (expression) => `(${expression} + ?)`,
    lockClause: () => '',
    // The claim's BEGIN IMMEDIATE waits the connection's busy timeout for another process's write
    // lock, and this process's own transactions at most `acquireTimeoutMs`.
    boundClaim: (select) => ({ setup: null, select }),
    // Without it the planner reads every due row through (status, available_at) and sorts them.
    unfinished: { partialIndex: true, hint: ({ open }) => ` INDEXED BY ${open}` },
  },
};
