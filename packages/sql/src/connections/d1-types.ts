/**
 * @module The part of Cloudflare's D1 API the D1 store uses, declared here so that neither the
 * store nor its users' builds need `@cloudflare/workers-types` (Cloudflare's `D1Database`, and a
 * `D1DatabaseSession`, fit these shapes).
 */

/** What one D1 statement returned: its rows, and how many rows it changed. */
export interface D1ResultLike {
  readonly results?: readonly unknown[];
  readonly meta: { readonly changes: number };
}

/** A D1 prepared statement (`env.DB.prepare(sql).bind(...)`): the part the store uses. */
export interface D1PreparedStatementLike {
  bind(...values: unknown[]): D1PreparedStatementLike;
  all(): Promise<D1ResultLike>;
  run(): Promise<D1ResultLike>;
}

/**
 * A D1 binding (`env.DB` of a Worker with `[[d1_databases]]` in its wrangler configuration), or
 * miniflare's `getD1Database()` in tests: the part the store uses.
 */
export interface D1DatabaseLike {
  prepare(query: string): D1PreparedStatementLike;
  /** Runs the statements in order as one SQL transaction: all of them commit, or none. */
  batch(statements: D1PreparedStatementLike[]): Promise<D1ResultLike[]>;
}

/**
 * What a transactional-looking completion on D1 takes instead of a transaction: statements of the
 * business write, prepared on the same D1 database and bound, that `complete` runs in one
 * `batch()` with the receipt's `completed` write (see `D1Store.complete`).
 */
export type D1Writes = readonly D1PreparedStatementLike[];

/** Options of `new D1Store(db, options)`. Every one is optional. */
export interface D1StoreOptions {
  /**
   * The receipts table: letters, digits and `_`, starting with a letter or `_`, at most 48
   * characters. Defaults to `'webhook_receipts'`.
   */
  table?: string;
}
