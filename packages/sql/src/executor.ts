/**
 * @module The thin layer between the store and a driver: run one statement (rows and affected
 * count), run work in a transaction. One small executor per kind of connection, in drivers/.
 */
import type { SqlDialect } from './types';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** What one statement produced. */
export interface QueryResult {
  readonly rows: readonly Row[];
  /** Rows the statement inserted, updated or deleted (for `RETURNING`, the rows returned). */
  readonly affected: number;
}

/** Runs statements on the user's connection. Never opens or closes it. */
export interface Executor {
  readonly dialect: SqlDialect;
  /** Runs one statement with `?` placeholders, in `transaction` when given. */
  query(sql: string, params: readonly unknown[], transaction?: unknown): Promise<QueryResult>;
  /** Runs `work` in a transaction: commits when it resolves, rolls back when it rejects. */
  transaction<T>(work: (transaction: unknown) => Promise<T>, lockStatement?: string): Promise<T>;
}

/**
 * Waits for a pooled connection at most `ms`. A connection that arrives after the deadline is
 * handed back to the pool, so a timeout never leaks one.
 */
export async function acquireWithin<C>(acquire: () => Promise<C>, release: (connection: C) => void, ms: number): Promise<C> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const pending = acquire();
  try {
    return await Promise.race([
      pending,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          late = true;
          reject(new Error(`no database connection within ${ms} ms (pool exhausted or database unreachable)`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (late) pending.then(release, () => undefined);
  }
}
