/**
 * @module Drizzle over libSQL (`drizzle-orm/libsql`, `@libsql/client` on a file or `:memory:`): the
 * store's statements through Drizzle's `run`, its transactions through `db.transaction(…,
 * { behavior: 'immediate' })`, the writes of one client taking turns.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'drizzle-orm';
import { statement, unwrap } from './drizzle-statement';
import type { Executor, QueryResult, Row } from './executor';
import { Mutex } from './mutex';
import { callbackTransaction, countOf, returnsRows } from './orm';

/** A libSQL client (`@libsql/client`), as Drizzle's libsql driver holds it in `$client`. */
interface LibsqlClient {
  readonly protocol: string;
  execute(statement: unknown): Promise<unknown>;
  transaction(mode?: string): Promise<unknown>;
}

export function isLibsql(client: unknown): client is LibsqlClient {
  if (typeof client !== 'object' || client === null) return false;
  const candidate = client as Record<string, unknown>;
  return (
    typeof candidate.protocol === 'string' &&
    typeof candidate.execute === 'function' &&
    typeof candidate.transaction === 'function' &&
    typeof candidate.batch === 'function'
  );
}

/** What the store calls on a Drizzle database over libSQL, and on its `tx`. */
export interface RunsAsync {
  run(query: SQL): Promise<unknown>;
  transaction(
    work: (tx: RunsAsync) => Promise<unknown>,
    config?: { behavior?: 'deferred' | 'immediate' | 'exclusive' },
  ): Promise<unknown>;
}

/**
 * A libSQL result set: rows keyed by column (blobs as ArrayBuffer), `rowsAffected`. For a
 * statement with RETURNING the count is the rows returned: libSQL 0.18 reports 0 changes for an
 * `UPDATE … RETURNING` that changed a row.
 */
function libsqlResult(result: unknown, returning: boolean): QueryResult {
  const { rows = [], rowsAffected } = result as { rows?: Row[]; rowsAffected?: unknown };
  const plain = rows.map((row) => {
    const copy: Row = {};
    for (const column of Object.keys(row)) {
      const value = row[column];
      copy[column] = value instanceof ArrayBuffer ? Buffer.from(value) : value;
    }
    return copy;
  });
  return { rows: plain, affected: returning ? plain.length : countOf(rowsAffected, plain.length) };
}

/**
 * libSQL's error as the store reads SQLite's: the extended code (`SQLITE_CONSTRAINT_PRIMARYKEY`)
 * in `code` and the number in `errcode`, as better-sqlite3 and node:sqlite give them.
 */
function libsqlError(error: unknown): unknown {
  const cause = unwrap(error);
  const { code, extendedCode, rawCode } = (cause ?? {}) as {
    code?: unknown;
    extendedCode?: unknown;
    rawCode?: unknown;
  };
  if (typeof code !== 'string') return cause;
  return Object.assign(new Error((cause as Error).message, { cause }), {
    code: typeof extendedCode === 'string' ? extendedCode : code,
    errcode: rawCode,
  });
}

const isBusy = (error: unknown) =>
  /^SQLITE_BUSY/.test(String((error as { code?: unknown } | null)?.code ?? ''));
/** libSQL's refusal of a statement while an open transaction holds its only connection (`:memory:`). */
const isHeld = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === 'TRANSACTION_ACTIVE';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` again while the file is locked by another connection (another process, or the
 * application's own writes outside the store), with a short backoff, for at most `waitMs`:
 * libSQL's connections wait for no lock themselves (no busy timeout unless the client sets one).
 */
async function whileBusy<T>(
  attempt: () => Promise<T>,
  waitMs: number,
  retryable: (error: unknown) => boolean,
): Promise<T> {
  const until = Date.now() + waitMs;
  for (let backoff = 2; ; backoff = Math.min(backoff * 2, 50)) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error) || Date.now() + backoff > until) throw error;
      await pause(backoff * (0.5 + Math.random()));
    }
  }
}

/** What every executor on one libSQL client shares: several stores on one client still take turns. */
interface LibsqlShared {
  readonly mutex: Mutex;
  /** The open transaction of the async context, for a store statement issued inside it without its handle. */
  readonly inTransaction: AsyncLocalStorage<{ open: boolean; readonly tx: RunsAsync }>;
}

const libsqlShared = new WeakMap<object, LibsqlShared>();

/**
 * Over libSQL (a `file:` database): the store's statements through Drizzle's `sql` and `run`, its
 * transactions through `db.transaction` with `behavior: 'immediate'`, so the write lock is taken
 * at BEGIN. SQLite has one writer at a time: the store's own writes and transactions take turns
 * on one mutex per client (a bounded wait, as on better-sqlite3); a read runs at once. Another
 * connection's lock (SQLITE_BUSY) is waited out for at most the store's `acquireTimeoutMs`.
 */
export function libsqlExecutor(db: RunsAsync, client: LibsqlClient, waitMs: number): Executor {
  let shared = libsqlShared.get(client);
  if (!shared) {
    shared = { mutex: new Mutex(), inTransaction: new AsyncLocalStorage() };
    libsqlShared.set(client, shared);
  }
  const { mutex, inTransaction } = shared;
  const run = async (runner: RunsAsync, text: string, params: readonly unknown[]) => {
    try {
      return libsqlResult(await runner.run(statement(text, params)), returnsRows(text));
    } catch (error) {
      throw libsqlError(error);
    }
  };
  return {
    dialect: 'sqlite',
    async query(text, params, transaction) {
      if (transaction !== undefined) return run(transaction as RunsAsync, text, params);
      const open = inTransaction.getStore();
      if (open?.open) return run(open.tx, text, params);
      if (/^\s*SELECT\b/i.test(text) && returnsRows(text)) {
        // A read needs no turn: in WAL mode it runs beside a writer on a connection of its own.
        // A client with one connection (`:memory:`) refuses it while a transaction holds that
        // connection; then it waits its turn like a write.
        try {
          return await whileBusy(() => run(db, text, params), waitMs, isBusy);
        } catch (error) {
          if (!isHeld(error)) throw error;
        }
      }
      return mutex.run(() => whileBusy(() => run(db, text, params), waitMs, isBusy), waitMs);
    },
    busy: () => mutex.busy,
    transaction(work, options = {}) {
      const outer = inTransaction.getStore();
      const opener = outer?.open ? outer.tx : db;
      const nested = opener !== db;
      return callbackTransaction(work, options, {
        open: async (body) => {
          if (!nested) await mutex.acquire(waitMs);
          try {
            let begun = false;
            const inside = (tx: RunsAsync) => {
              begun = true;
              const marker = { open: true, tx };
              return inTransaction.run(marker, () =>
                body(tx).finally(() => {
                  marker.open = false;
                }),
              );
            };
            // Only a BEGIN that found the file locked is tried again: once the body has begun,
            // a failure is the transaction's own.
            return (await whileBusy(
              () =>
                nested
                  ? opener.transaction(inside)
                  : opener.transaction(inside, { behavior: 'immediate' }),
              waitMs,
              (error) => !begun && isBusy(unwrap(error)),
            )) as { value: unknown };
          } finally {
            if (!nested) mutex.release();
          }
        },
        acquireTimeoutMs: waitMs + 1000,
        unwrap: libsqlError,
      });
    },
  };
}
