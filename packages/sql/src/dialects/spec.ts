/**
 * @module The shape of one row of the dialect table (index.ts): every fragment a statement of the
 * receipts, the inbox or the admin is built from, and what the connections need to know of a
 * dialect (its transaction bounds, its placeholders, whether it has one writer).
 *
 * Time: every timestamp comes from the database clock, to the millisecond, so app servers with
 * skewed clocks agree on staleness. PostgreSQL stores `TIMESTAMPTZ(3)`, MySQL/MariaDB
 * `DATETIME(3)` in UTC, SQLite an `INTEGER` of milliseconds since the Unix epoch (UTC). Reads
 * convert both the column and "now" to epoch milliseconds in the same statement.
 */
import type { SqlDialect } from './name';

/** The per-dialect fragments the statements are built from: one row of the table. */
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
  /**
   * Appended to a multi-row `INSERT` into `table` (quoted) whose unique key is `keys`: a row whose
   * key exists adds its `column` to the stored one instead (a counter's upsert, atomic per row).
   */
  addOnConflict(table: string, keys: string, column: string): string;
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
   * A `DELETE` of at most `chunkSize` rows matching `where`. The whole of `where` must hold on
   * every row the statement removes, also on a row that changed while the DELETE waited for its
   * lock (a receipt taken over, or taken over and completed again, since the batch was chosen).
   */
  deleteChunk(table: string, where: string): ChunkDelete;
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
  /**
   * One writer at a time for the whole database (SQLite): a write waits for the transaction under
   * way, so the inbox's group commit writes one transaction at a time, a tool whose one connection
   * runs statements outside its transactions must take turns with them, and an inbox on the
   * receipts' very connection makes the endpoint wait for the handlers.
   */
  readonly singleWriter: boolean;
  /**
   * The statements that bound a transaction's lock waits (and, where the server can, its idle
   * time) by the guard's deadline of `timeoutMs` milliseconds, run first inside it by the tools
   * that begin the transaction themselves (knex, the ORMs). Empty where there is nothing to bound
   * (SQLite: its busy timeout). A tool that can send several commands at once joins them with
   * `; ` (one round trip); one that prepares every statement sends them one by one.
   */
  transactionBounds(timeoutMs: number): readonly string[];
  /** The statement `sql` with its `?` placeholders as this dialect's tools number them (`$1, $2, …` on PostgreSQL). */
  placeholders(sql: string): string;
  /** What the inbox table needs beyond the receipts' fragments. */
  readonly inbox: InboxFragments;
}

/** A batch `DELETE` and the order of its parameters. */
export interface ChunkDelete {
  readonly sql: string;
  /** The statement's parameters, from those of its `where` and the batch size. */
  params(whereParams: readonly unknown[], chunkSize: number): unknown[];
}

/**
 * What the inbox table needs beyond the receipts' fragments: an increasing id, a bytes column,
 * "now plus n milliseconds" and the claim's row lock. Everything else (quoting, key and time
 * types, "now", the duplicate-key codes, batch deletes) is the receipts' fragments, which the
 * inbox's statements read too.
 */
export interface InboxFragments {
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
  boundLease(
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
