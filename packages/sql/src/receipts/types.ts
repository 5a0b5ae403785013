/** @module Options of the receipts store (`SqlStore`) and of its `Schema`. */

/** Options of `new SqlStore(db, options)`. Every one is optional. */
export interface SqlStoreOptions {
  /**
   * The receipts table: letters, digits and `_`, starting with a letter or `_`, at most 48
   * characters. It is quoted in every statement. Defaults to `'webhook_receipts'`.
   */
  table?: string;
  /**
   * Milliseconds a statement waits for a connection from a `pg` or `mysql2` pool (pool exhausted,
   * database unreachable), or for the transaction open on a SQLite connection (`better-sqlite3`,
   * `node:sqlite`, `bun:sqlite`) to end, before it fails with a store error (503) instead of
   * hanging. A knex instance uses its own `acquireConnectionTimeout`. Defaults to 10 000.
   */
  acquireTimeoutMs?: number;
  /**
   * Send the store's statements as server-side prepared statements, so the database parses and
   * plans each one once per connection instead of on every delivery: named statements on a `pg`
   * Pool, `execute()` on a `mysql2` pool. Turn it off behind a pooler in transaction mode that
   * does not track prepared statements (PgBouncer before 1.21, some proxies). better-sqlite3
   * statements are always prepared once; a knex instance sends what knex builds. Defaults to `true`.
   */
  preparedStatements?: boolean;
}

/** Options of the `Schema` helpers. */
export interface SchemaOptions {
  /** The receipts table, validated like {@link SqlStoreOptions.table}. Defaults to `'webhook_receipts'`. */
  table?: string;
}
