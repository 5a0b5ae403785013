/**
 * @module Public types of the connections: what the stores accept and the transaction handle each
 * gives. Every driver's connection is declared here by the part the store uses, never imported
 * from the driver: the package's declarations then compile (`skipLibCheck: false`) with only the
 * driver the application installed, and a driver's own types still give the transaction handle
 * (inferred from the connection, {@link TransactionOf}). The package's index re-exports every
 * type of this module (`export type *`): what is added here is public.
 */
import type { OrmConnection } from './orm';

export type { SqlDialect } from '../dialects/name';

/**
 * What `new SqlStore(db)` accepts: the connection the application already has. The store never
 * opens or closes it.
 */
export type SqlConnection =
  | KnexInstance
  | PgPool
  | MysqlPromisePool
  | MysqlCallbackPool
  | BetterSqlite3Database
  | NodeSqliteDatabase
  | BunSqliteDatabase
  | OrmConnection;

/** A knex instance (or a knex transaction), `knex(config)`: the part the store uses. */
export interface KnexInstance {
  (...args: never[]): unknown;
  transactionProvider(config?: never): () => Promise<unknown>;
  readonly client: object;
}

/** A `pg` `Pool` (never a lone `Client`: it would interleave concurrent transactions): the part the store uses. */
export interface PgPool {
  connect(): Promise<unknown>;
  query(...args: never[]): unknown;
  readonly idleCount: number;
  readonly totalCount: number;
}

/** A `mysql2/promise` pool, `createPool(config)`: the part the store uses. */
export interface MysqlPromisePool {
  getConnection(): Promise<unknown>;
  query(...args: never[]): unknown;
  readonly pool: object;
}

/** A `mysql2` callback pool, `createPool(config)` from `mysql2`: the part the store uses. */
export interface MysqlCallbackPool {
  getConnection(callback: (error: unknown, connection: unknown) => unknown): void;
  promise(...args: never[]): unknown;
}

/** A `better-sqlite3` `Database`: the part the store uses. */
export interface BetterSqlite3Database {
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: never): unknown;
  readonly inTransaction: boolean;
}

/**
 * A statement of Node's built-in `node:sqlite` (`StatementSync`): the part the store uses.
 * Declared here so the package's types do not need a `@types/node` that knows `node:sqlite`.
 */
export interface NodeSqliteStatement {
  all(...parameters: Array<null | number | bigint | string | Uint8Array>): unknown[];
  run(...parameters: Array<null | number | bigint | string | Uint8Array>): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  };
  columns(): unknown[];
}

/**
 * Node's built-in SQLite connection, `new DatabaseSync(path)` from `node:sqlite` (Node ≥ 22.16,
 * the first with `isTransaction` and `StatementSync.columns()`): the part the store uses. Pass `{ timeout: 5000 }` when several
 * processes share the file, so a writer waits for the lock instead of failing at once.
 */
export interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeSqliteStatement;
  readonly isTransaction: boolean;
}

/**
 * A statement of Bun's built-in `bun:sqlite` (`Statement`): the part the store uses. Declared
 * here so the package's types need no Bun type definitions.
 */
export interface BunSqliteStatement {
  all(...parameters: Array<null | number | bigint | string | boolean | Uint8Array>): unknown[];
  run(...parameters: Array<null | number | bigint | string | boolean | Uint8Array>): {
    changes: number;
    lastInsertRowid: number | bigint;
  };
  /** The result columns' names: empty for a statement that returns no rows. */
  readonly columnNames: readonly string[];
}

/**
 * Bun's built-in SQLite connection, `new Database(path)` from `bun:sqlite` (tested on Bun 1.4):
 * the part the store uses. Run `PRAGMA busy_timeout = 5000` when several processes share the
 * file, so a writer waits for the lock instead of failing at once (Bun's default is 0).
 */
export interface BunSqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): BunSqliteStatement;
  query(sql: string): unknown;
  readonly inTransaction: boolean;
}

/**
 * The transaction handle the guard gives a transactional handler (`context.transaction`), by the
 * kind of connection the store was built on:
 *
 * | connection | handle |
 * |---|---|
 * | `knex` instance | `Knex.Transaction` |
 * | `pg` `Pool` | `PoolClient`, inside `BEGIN` |
 * | `mysql2/promise` pool | promise `PoolConnection`, inside `START TRANSACTION` |
 * | `mysql2` callback pool | callback `PoolConnection`, inside `START TRANSACTION` |
 * | `better-sqlite3` `Database` | the same `Database`, inside `BEGIN IMMEDIATE` |
 * | `node:sqlite` `DatabaseSync` | the same `DatabaseSync`, inside `BEGIN IMMEDIATE` |
 * | `bun:sqlite` `Database` | the same `Database`, inside `BEGIN IMMEDIATE` |
 * | `fromKysely(db)` | Kysely's `Transaction<DB>` |
 * | `fromDrizzle(db)` | Drizzle's `tx` (over better-sqlite3: the Drizzle database itself, inside `BEGIN IMMEDIATE`) |
 * | `fromPrisma(prisma)` | the client of Prisma's interactive transaction (`Prisma.TransactionClient`) |
 * | `fromPostgres(sql)` | postgres-js's `TransactionSql` |
 */
export type TransactionOf<Db> =
  Db extends OrmConnection<infer Tx>
    ? Tx
    : Db extends KnexInstance
      ? KnexTransactionOf<Db>
      : Db extends PgPool
        ? PgClientOf<Db>
        : Db extends MysqlPromisePool
          ? Db extends { getConnection(): Promise<infer Connection> }
            ? Connection
            : never
          : Db extends MysqlCallbackPool
            ? Db extends {
                getConnection(
                  callback: (error: unknown, connection: infer Connection) => unknown,
                ): void;
              }
              ? Connection
              : never
            : Db extends BetterSqlite3Database | NodeSqliteDatabase | BunSqliteDatabase
              ? Db
              : never;

/** knex's `Knex.Transaction`, from the instance (`transactionProvider()` resolves to one). */
type KnexTransactionOf<Db> = Db extends {
  transactionProvider(config?: never): () => Promise<infer Transaction>;
}
  ? Transaction
  : never;

/**
 * pg's `PoolClient`, from the pool: `connect(callback)`'s client (the callback form is the one
 * TypeScript infers from, being the last of `connect`'s overloads).
 */
type PgClientOf<Db> = Db extends {
  connect(callback: (error: unknown, client: infer Client, done: unknown) => void): void;
}
  ? NonNullable<Client>
  : never;
