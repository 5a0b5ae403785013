/**
 * @module `fromPrisma(prisma)`: `SqlStore` and `SqlInbox` over the application's Prisma 7 client and its
 * driver adapter (`@prisma/adapter-pg`, `@prisma/adapter-mariadb`, `@prisma/adapter-better-sqlite3`).
 * A transactional handler gets Prisma's interactive-transaction client: what it writes through
 * it and the receipt commit or roll back together.
 */
import { ConfigError, StoreError } from '@webhook-idempotency/core';
import { type DialectSpec, dialects } from '../dialects';
import type { Executor, QueryResult, Row, TransactionRunOptions } from './executor';
import {
  callbackTransaction,
  ormConnection,
  returnsRows,
  EXECUTOR,
  type OrmConnection,
} from './orm';
import type { SqlDialect } from '../dialects/name';

/** What the store calls on a Prisma client, and on the client of its interactive transaction. */
interface RawClient {
  $queryRawUnsafe(query: string, ...values: unknown[]): PromiseLike<unknown>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<unknown>;
}

interface PrismaLike extends RawClient {
  $transaction(
    work: (tx: RawClient) => Promise<unknown>,
    options?: { maxWait?: number; timeout?: number },
  ): PromiseLike<unknown>;
}

/**
 * The handle a transactional handler gets from a store over the Prisma client `P`: the client of
 * `P`'s interactive transactions (`Prisma.TransactionClient`, or that of the extended client).
 */
export type PrismaTransactionOf<P> = P extends {
  $transaction(work: (tx: infer Tx) => Promise<unknown>, ...rest: never[]): Promise<unknown>;
}
  ? Tx
  : never;

/** Prisma's provider names → the store's dialects. */
const PROVIDERS: Readonly<Record<string, SqlDialect>> = {
  postgres: 'postgres',
  postgresql: 'postgres',
  mysql: 'mysql',
  sqlite: 'sqlite',
};

/** The provider of `prisma`: its schema's datasource, or the driver adapter's. */
function dialectOf(prisma: object): SqlDialect {
  const client = prisma as {
    _activeProvider?: unknown;
    _engineConfig?: { activeProvider?: unknown; adapter?: { provider?: unknown } };
  };
  const provider =
    client._activeProvider ??
    client._engineConfig?.activeProvider ??
    client._engineConfig?.adapter?.provider;
  const dialect = typeof provider === 'string' ? PROVIDERS[provider] : undefined;
  if (!dialect)
    throw new ConfigError(
      'db',
      `the Prisma client's provider (${String(provider)}) is not supported; use postgresql, mysql or sqlite`,
    );
  return dialect;
}

/** Bytes come back as Uint8Array: the store reads them as Buffers, as the drivers give them. */
function rowOf(row: Record<string, unknown>): Row {
  for (const column of Object.keys(row)) {
    const value = row[column];
    if (value instanceof Uint8Array && !Buffer.isBuffer(value))
      row[column] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return row;
}

/**
 * The database's own error code under Prisma's (a raw query's failure is `P2010`, the driver
 * adapter's error in its `meta`), as the drivers report it: the store tells a duplicate key or a
 * deadlock by that code. The message is Prisma's, which quotes no statement.
 */
function unwrap(error: unknown): unknown {
  const meta = (error as { meta?: Record<string, unknown> } | null)?.meta;
  const adapter = (meta?.driverAdapterError as { cause?: Record<string, unknown> } | undefined)
    ?.cause;
  const code = adapter?.originalCode ?? meta?.code;
  if (code === undefined || code === null) return error;
  const text = String(code);
  return Object.assign(new Error((error as Error).message, { cause: error }), {
    code: text,
    errno: /^\d+$/.test(text) ? Number(text) : undefined,
    sqlState: text,
  });
}

/** Prisma's own codes for a database it lost or could not reach (P1001, P1002, P1008, P1017). */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
/** Socket errors, and PostgreSQL's codes for a backend that was ended (57P01–57P03). */
const DRIVER_CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
]);

/** An error Prisma or its driver adapter raised (not one of the handler's other calls). */
function raisedByPrisma(error: object): boolean {
  const { name, meta } = error as { name?: unknown; meta?: { driverAdapterError?: unknown } };
  return (
    (typeof name === 'string' && name.startsWith('PrismaClient')) ||
    meta?.driverAdapterError !== undefined
  );
}

/** node-postgres's refusal of a client whose connection failed, which adapter-pg passes on as it is. */
const PG_NOT_QUERYABLE = 'Client has encountered a connection error and is not queryable';

/**
 * True when `error`, raised by Prisma or its driver adapter, says the transaction's connection is
 * gone: Prisma's connection codes, a driver adapter's error of SQLSTATE class 08 (connection
 * exception) or with a socket or backend-terminated code, or node-postgres refusing a client that
 * already failed. A socket error of the handler's own calls (`fetch`, another service) is the
 * handler's failure, not the store's.
 */
function connectionLost(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  if ((error as { message?: unknown }).message === PG_NOT_QUERYABLE) return true;
  if (!raisedByPrisma(error)) return false;
  const { code, meta } = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: Record<string, unknown> } };
  };
  if (typeof code === 'string' && PRISMA_CONNECTION_CODES.has(code)) return true;
  const cause = meta?.driverAdapterError?.cause;
  if (!cause) return false;
  const state = String(cause.state ?? '');
  const original = String(cause.originalCode ?? '');
  return (
    state.startsWith('08') || original.startsWith('08') || DRIVER_CONNECTION_CODES.has(original)
  );
}

/**
 * The model delegates of a Prisma client (`tx.order`): every property but Prisma's own (`$…`,
 * `_…`). Their calls run statements, so the handle gates them too: a model call after the
 * transaction ended throws `TransactionClosed`, as a raw query does, instead of Prisma's P2028.
 */
const modelDelegate = (property: PropertyKey): boolean =>
  typeof property === 'string' && !property.startsWith('$') && !property.startsWith('_');

/** How long past the guard's deadline Prisma ends the transaction itself (ours has ended it first). */
const PRISMA_TIMEOUT_MARGIN_MS = 1000;
/** Without a deadline (a transaction outside the guard), Prisma's own 5 s default would cut the work. */
const NO_DEADLINE_MS = 2_147_483_647;

/** Runs one statement through Prisma's raw API on `client` (the client or a transaction's), the database's error code under Prisma's. */
async function runRaw(
  spec: DialectSpec,
  client: RawClient,
  sql: string,
  params: readonly unknown[],
): Promise<QueryResult> {
  const text = spec.placeholders(sql);
  try {
    if (returnsRows(sql)) {
      const rows = (
        (await client.$queryRawUnsafe(text, ...params)) as Record<string, unknown>[]
      ).map(rowOf);
      return { rows, affected: rows.length };
    }
    return { rows: [], affected: Number(await client.$executeRawUnsafe(text, ...params)) };
  } catch (error) {
    throw unwrap(error);
  }
}

/** Runs the store's `work` in an interactive transaction of `prisma`, with the store's bounds. */
async function prismaTransaction<T>(
  prisma: PrismaLike,
  spec: DialectSpec,
  acquireTimeoutMs: number,
  work: (transaction: unknown) => Promise<T>,
  options: TransactionRunOptions,
): Promise<T> {
  const { lockStatement, timeoutMs } = options;
  try {
    return await callbackTransaction(work, options, {
      // Prisma's own bounds agree with the store's: it waits for a connection as long as the
      // store would, and ends the transaction only after the guard's deadline has.
      open: (body) =>
        prisma.$transaction(body as (tx: RawClient) => Promise<unknown>, {
          maxWait: acquireTimeoutMs,
          timeout: timeoutMs ? Math.ceil(timeoutMs) + PRISMA_TIMEOUT_MARGIN_MS : NO_DEADLINE_MS,
        }) as PromiseLike<{ value: unknown }>,
      setup: async (tx) => {
        const client = tx as RawClient;
        if (lockStatement) await runRaw(spec, client, lockStatement, []);
        // One statement each: Prisma sends every raw statement prepared, which holds one command.
        for (const bound of timeoutMs ? spec.transactionBounds(timeoutMs) : [])
          await runRaw(spec, client, bound, []);
      },
      acquireTimeoutMs: acquireTimeoutMs + 1000,
      unwrap,
      members: modelDelegate,
    });
  } catch (error) {
    // Prisma swallows the ROLLBACK it could not send on a dead connection, so the handler's
    // failure is all that shows: when it says the connection is gone, nothing committed and
    // the store lost the transaction (503, retried), as on the other tools.
    if (!(error instanceof StoreError) && connectionLost(error))
      throw new StoreError('transaction', error);
    throw error;
  }
}

function prismaExecutor(
  prisma: PrismaLike,
  dialect: SqlDialect,
  acquireTimeoutMs: number,
): Executor {
  const spec = dialects[dialect];
  return {
    dialect,
    query: (sql, params, transaction) => {
      if (transaction !== undefined || !spec.singleWriter)
        return runRaw(spec, (transaction as RawClient | undefined) ?? prisma, sql, params);
      // One writer (SQLite) is one connection, and Prisma's adapter runs a raw statement outside
      // its transaction lock: while a handler's transaction is open, a claim would run inside it
      // and roll back with it. In a transaction of its own, the statement waits its turn instead.
      return Promise.resolve(
        prisma.$transaction((tx) => runRaw(spec, tx, sql, params), {
          maxWait: acquireTimeoutMs,
          timeout: NO_DEADLINE_MS,
        }),
      ) as Promise<QueryResult>;
    },
    transaction: (work, options = {}) =>
      prismaTransaction(prisma, spec, acquireTimeoutMs, work, options),
  };
}

/**
 * True for the client of an interactive transaction (`tx` in `$transaction(async (tx) => …)`),
 * extended or not. Prisma 7 gives it `$transaction` too, but never `$connect` or `$disconnect`,
 * which every client (extended or not) has.
 */
function isTransactionClient(client: object): boolean {
  const { $transaction, $connect, $disconnect } = client as Record<string, unknown>;
  return (
    typeof $transaction !== 'function' ||
    typeof $connect !== 'function' ||
    typeof $disconnect !== 'function'
  );
}

/**
 * `prisma`, the application's Prisma 7 client (`new PrismaClient({ adapter })`, extended or not),
 * as a connection for `new SqlStore(…)`, `new SqlInbox(…)`, `Schema.createTable(…)` and
 * `ReceiptsAdmin`. The store's statements run through `$queryRawUnsafe` / `$executeRawUnsafe`
 * with bound parameters; a transactional handler gets the client of a `$transaction(async (tx) =>
 * …)`, whose `maxWait` is the store's `acquireTimeoutMs` and whose `timeout` is the guard's
 * handler deadline plus a second, so Prisma never ends a transaction the guard still counts on.
 *
 * @example
 * ```ts
 * const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
 * const store = new SqlStore(fromPrisma(prisma));
 * guard.run(key, async ({ transaction: tx }) => {
 *   await tx!.order.update({ where: { id }, data: { paid: true } });
 * });
 * ```
 * @throws {ConfigError} naming `db` when `prisma` is not a Prisma client, is a transaction's
 * client, or its provider is not PostgreSQL, MySQL or SQLite.
 */
export function fromPrisma<P extends object>(prisma: P): OrmConnection<PrismaTransactionOf<P>> {
  const client = prisma as Partial<PrismaLike>;
  if (
    typeof client.$queryRawUnsafe !== 'function' ||
    typeof client.$executeRawUnsafe !== 'function'
  )
    throw new ConfigError('db', 'must be a Prisma client, new PrismaClient({ adapter })');
  if (isTransactionClient(client))
    throw new ConfigError(
      'db',
      "is a Prisma transaction's client (the `tx` of $transaction); pass the client itself, and the store opens its own transactions",
    );
  return ormConnection(prisma, () => {
    const dialect = dialectOf(prisma);
    return {
      kind: `Prisma (${dialect})`,
      dialect,
      [EXECUTOR]: ({ acquireTimeoutMs }) =>
        prismaExecutor(prisma as unknown as PrismaLike, dialect, acquireTimeoutMs),
    };
  });
}
