/**
 * @module Drizzle over libSQL in memory (`drizzle-orm/libsql`, `@libsql/client` with `:memory:`):
 * the store's statements through Drizzle's `run`, its transactions through `db.transaction`,
 * which opens libSQL's write transaction (`BEGIN IMMEDIATE`), the writes of one client taking
 * turns. A libSQL file is refused (see LIBSQL_FILE_REFUSED).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQL } from 'drizzle-orm';
import { ConfigError } from '@webhook-idempotency/core';
import { statement, unwrap } from './drizzle-statement';
import type { Executor, QueryResult, Row } from './executor';
import { Mutex } from './mutex';
import { madeOnce } from './once';
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
  const { name, code, extendedCode, rawCode } = (cause ?? {}) as {
    name?: unknown;
    code?: unknown;
    extendedCode?: unknown;
    rawCode?: unknown;
  };
  // Only libSQL's own errors: the gate's TransactionClosed and the like pass as they are.
  if (typeof code !== 'string' || (name !== 'LibsqlError' && typeof rawCode !== 'number'))
    return cause;
  return Object.assign(new Error((cause as Error).message, { cause }), {
    code: typeof extendedCode === 'string' ? extendedCode : code,
    errcode: rawCode,
  });
}

/** libSQL's refusal of a statement while an open transaction holds its only connection (`:memory:`). */
const isHeld = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === 'TRANSACTION_ACTIVE';

/**
 * Why a libSQL file is refused: @libsql/client 0.18 (libsql 0.5) does not reset a statement that
 * failed, so one write that meets another connection's lock (SQLITE_BUSY) stays active on its
 * pooled connection, and every later write on that connection joins a transaction that never
 * commits (another connection never sees it, and the file stays locked). In memory there is one
 * connection and no other writer, so no statement can meet a lock.
 */
const LIBSQL_FILE_REFUSED =
  "is a Drizzle database over a libSQL file; @libsql/client 0.18 leaves a write that met a locked file unfinished on its connection, and that connection's later writes never commit, so the store accepts libSQL in memory only. For a file, give the same file to drizzle-orm/better-sqlite3";

/** What every executor on one libSQL client shares: several stores on one client still take turns. */
interface LibsqlShared {
  readonly mutex: Mutex;
  /** The open transaction of the async context, for a store statement issued inside it without its handle. */
  readonly inTransaction: AsyncLocalStorage<{ open: boolean; readonly tx: RunsAsync }>;
}

const libsqlShared = new WeakMap<object, LibsqlShared>();

/** The executors' shared state of `client`, made by the first executor over it. */
function libsqlSharedOf(client: LibsqlClient): LibsqlShared {
  return madeOnce(libsqlShared, client, () => ({
    mutex: new Mutex(),
    inTransaction: new AsyncLocalStorage(),
  }));
}

/** Runs one statement through Drizzle's `run` on `runner` (the database or a `tx`), its error as SQLite's. */
async function run(
  runner: RunsAsync,
  text: string,
  params: readonly unknown[],
): Promise<QueryResult> {
  try {
    return libsqlResult(await runner.run(statement(text, params)), returnsRows(text));
  } catch (error) {
    throw libsqlError(error);
  }
}

/** Resolves once the main database of `db` is known to be in memory (no file behind it), asked once. */
function memoryOnly(db: RunsAsync): () => Promise<void> {
  let checked: Promise<void> | undefined;
  return () => {
    checked ??= run(db, 'PRAGMA database_list', []).then(({ rows }) => {
      const main = rows.find((row) => row.name === 'main');
      if (main && typeof main.file === 'string' && main.file !== '')
        throw new ConfigError('db', LIBSQL_FILE_REFUSED);
    });
    return checked;
  };
}

/**
 * Opens Drizzle's transaction on `db` (libSQL's write transaction, in its turn on the client's
 * mutex), or a nested one on the open `tx` of this async context, and runs `body` in it with the
 * context marked, so the store's statements issued inside without the handle run on that `tx`.
 */
async function openTransaction(
  db: RunsAsync,
  { mutex, inTransaction }: LibsqlShared,
  inMemory: () => Promise<void>,
  waitMs: number,
  body: (tx: RunsAsync) => Promise<{ value: unknown }>,
): Promise<{ value: unknown }> {
  const outer = inTransaction.getStore();
  const opener = outer?.open ? outer.tx : db;
  const nested = opener !== db;
  if (!nested) await inMemory();
  if (!nested) await mutex.acquire(waitMs);
  try {
    const inside = (tx: RunsAsync) => {
      const marker = { open: true, tx };
      return inTransaction.run(marker, () =>
        body(tx).finally(() => {
          marker.open = false;
        }),
      );
    };
    return (await (nested
      ? opener.transaction(inside)
      : opener.transaction(inside, { behavior: 'immediate' }))) as { value: unknown };
  } finally {
    if (!nested) mutex.release();
  }
}

/**
 * Over libSQL in memory (`:memory:`; a file is refused at the first statement, see
 * {@link LIBSQL_FILE_REFUSED}): the store's statements through Drizzle's `sql` and `run`, its
 * transactions through `db.transaction`, which opens libSQL's write transaction (Drizzle 0.45
 * passes no `behavior` on to libSQL, whose default is `BEGIN IMMEDIATE`; `behavior: 'immediate'`
 * is given for a Drizzle that does). The one connection is held by an open transaction: the
 * store's writes and transactions take turns on one mutex per client (a bounded wait); a read
 * runs at once unless the transaction holds the connection, then it waits its turn too.
 */
export function libsqlExecutor(db: RunsAsync, client: LibsqlClient, waitMs: number): Executor {
  const shared = libsqlSharedOf(client);
  const { mutex, inTransaction } = shared;
  // Once per executor: the main database must be in memory (no file behind it).
  const inMemory = memoryOnly(db);
  return {
    dialect: 'sqlite',
    async query(text, params, transaction) {
      if (transaction !== undefined) return run(transaction as RunsAsync, text, params);
      const open = inTransaction.getStore();
      if (open?.open) return run(open.tx, text, params);
      await inMemory();
      if (/^\s*SELECT\b/i.test(text) && returnsRows(text)) {
        // A read needs no turn, unless an open transaction holds the one connection (libSQL
        // refuses it then, before running anything): then it waits its turn like a write.
        try {
          return await run(db, text, params);
        } catch (error) {
          if (!isHeld(error)) throw error;
        }
      }
      return mutex.run(() => run(db, text, params), waitMs);
    },
    busy: () => mutex.busy,
    transaction: (work, options = {}) =>
      callbackTransaction(work, options, {
        open: (body) => openTransaction(db, shared, inMemory, waitMs, body),
        acquireTimeoutMs: waitMs + 1000,
        unwrap: libsqlError,
      }),
  };
}
