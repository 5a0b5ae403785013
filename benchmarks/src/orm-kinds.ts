/**
 * @module The ORM connections of the ORM benchmark, each with the same tool's raw-SQL API as a
 * user of it would write by hand: Kysely's `executeQuery(CompiledQuery.raw(…))`, Drizzle's `sql`
 * through `execute` (`all`/`run` on SQLite), Prisma's `$queryRawUnsafe`/`$executeRawUnsafe`,
 * postgres-js's `unsafe`; and each tool's own transaction (`db.transaction().execute`,
 * `db.transaction`, `$transaction`, `sql.begin`).
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlConnection, SqlDialect } from '@webhook-idempotency/sql';
import { fromDrizzle } from '@webhook-idempotency/sql/drizzle';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import { fromPostgres } from '@webhook-idempotency/sql/postgres';
import { fromPrisma } from '@webhook-idempotency/sql/prisma';
import Database from 'better-sqlite3';
import { sql as drizzleSql, type SQL, type SQLChunk } from 'drizzle-orm';
import { createClient as createLibsqlClient } from '@libsql/client';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { PrismaClient as PrismaMysql } from '../../packages/sql/test/prisma/generated/mysql/client';
import { PrismaClient as PrismaPostgres } from '../../packages/sql/test/prisma/generated/postgresql/client';
import { PrismaClient as PrismaSqlite } from '../../packages/sql/test/prisma/generated/sqlite/client';

/** What one statement gave back, whatever the tool's own shape. */
export interface RawResult {
  readonly rows: Array<Record<string, unknown>>;
  readonly affected: number;
  readonly insertId?: number;
}

/** An ORM connection for the store, and the same tool driven by hand. */
export interface OrmKind {
  readonly name: string;
  readonly dialect: SqlDialect;
  /** What the store is given (`fromKysely(db)`, …). */
  readonly connection: SqlConnection;
  /** One statement (`?` placeholders) through the tool's raw API, on `tx` or the database. */
  query(sql: string, params: readonly unknown[], tx?: unknown): Promise<RawResult>;
  /** `statements`, one after the other, inside one of the tool's own transactions. */
  transact(statements: ReadonlyArray<readonly [string, readonly unknown[]]>): Promise<void>;
  close(): Promise<void>;
}

/** Where each database's kinds connect: one database (or file) per kind, made by the caller. */
export interface KindTargets {
  /** A PostgreSQL URL for a new database named `name`. */
  postgres(name: string): Promise<string>;
  /** A MariaDB URL for a new database named `name`. */
  mysql(name: string): Promise<string>;
  /** A SQLite file path for `name` (WAL, synchronous=NORMAL set by the caller's open). */
  sqlite(name: string): string;
}

const POOL = 8;
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};
/** Runs `statements` in order through `query` on the transaction `tx`. */
async function inOrder(
  query: OrmKind['query'],
  tx: unknown,
  statements: ReadonlyArray<readonly [string, readonly unknown[]]>,
): Promise<void> {
  for (const [sql, params] of statements) await query(sql, params, tx);
}
/** A statement that returns rows (read through the tools' row-returning calls). */
const READS = /^\s*(SELECT|WITH)\b|\bRETURNING\b/i;
const count = (value: unknown) => (value === undefined || value === null ? 0 : Number(value));

function sqliteFile(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

function kysely(name: string, dialect: SqlDialect, db: Kysely<unknown>): OrmKind {
  const kind: OrmKind = {
    name,
    dialect,
    connection: fromKysely(db),
    async query(sql, params, tx) {
      const runner = (tx as Kysely<unknown> | undefined) ?? db;
      const text = dialect === 'postgres' ? numbered(sql) : sql;
      const result = await runner.executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(text, [...params]),
      );
      return {
        rows: result.rows,
        affected: count(result.numAffectedRows ?? result.rows.length),
        insertId: count(result.insertId),
      };
    },
    transact: (statements) => db.transaction().execute((tx) => inOrder(kind.query, tx, statements)),
    close: () => db.destroy(),
  };
  return kind;
}

/** A statement with `?` placeholders as Drizzle SQL: the text raw, every value a bound param. */
function drizzleStatement(sql: string, params: readonly unknown[]): SQL {
  const parts = sql.split('?');
  const chunks: SQLChunk[] = [drizzleSql.raw(parts[0]!)];
  for (let i = 1; i < parts.length; i++)
    chunks.push(drizzleSql.param(params[i - 1]), drizzleSql.raw(parts[i]!));
  return drizzleSql.join(chunks);
}

type DrizzleServer = {
  execute(query: SQL): Promise<unknown>;
  transaction(work: (tx: DrizzleServer) => Promise<void>): Promise<void>;
};

function drizzleServer(
  name: string,
  dialect: 'postgres' | 'mysql',
  db: DrizzleServer,
  close: () => Promise<void>,
): OrmKind {
  const kind: OrmKind = {
    name,
    dialect,
    connection: fromDrizzle(db as never),
    async query(sql, params, tx) {
      const result = await ((tx as DrizzleServer | undefined) ?? db).execute(
        drizzleStatement(sql, params),
      );
      if (dialect === 'mysql') {
        const value = (result as unknown[])[0] as
          | Array<Record<string, unknown>>
          | { affectedRows: number; insertId: number };
        return Array.isArray(value)
          ? { rows: value, affected: value.length }
          : { rows: [], affected: value.affectedRows, insertId: value.insertId };
      }
      // node-postgres: a QueryResult; postgres-js: the rows, with their count.
      if (Array.isArray(result))
        return { rows: result, affected: count((result as { count?: number }).count) };
      const { rows, rowCount } = result as {
        rows: Array<Record<string, unknown>>;
        rowCount: number;
      };
      return { rows, affected: count(rowCount) };
    },
    transact: (statements) => db.transaction((tx) => inOrder(kind.query, tx, statements)),
    close,
  };
  return kind;
}

/**
 * Drizzle over better-sqlite3: its transactions are synchronous, so by hand the statements run in
 * one `db.transaction((tx) => …)` without an await, as a Drizzle user on that driver writes them.
 */
function drizzleSqliteKind(file: string): OrmKind {
  const client = sqliteFile(file);
  const db = drizzleSqlite(client);
  type Sync = {
    all(query: SQL): Array<Record<string, unknown>>;
    run(query: SQL): { changes: number };
  };
  const run = (sql: string, params: readonly unknown[], tx?: unknown): RawResult => {
    const runner = ((tx as Sync | undefined) ?? db) as unknown as Sync;
    const statement = drizzleStatement(sql, params);
    if (READS.test(sql)) {
      const rows = runner.all(statement);
      return { rows, affected: rows.length };
    }
    return { rows: [], affected: runner.run(statement).changes };
  };
  return {
    name: 'Drizzle over better-sqlite3',
    dialect: 'sqlite',
    connection: fromDrizzle(db),
    query: async (sql, params, tx) => run(sql, params, tx),
    async transact(statements) {
      db.transaction((tx) => {
        for (const [sql, params] of statements) run(sql, params, tx);
      });
    },
    close: async () => void client.close(),
  };
}

/**
 * Drizzle over libSQL in memory: by hand, the statements through `db.run` and the transaction
 * through `db.transaction(…, { behavior: 'immediate' })`. The one connection is held by an open
 * transaction, so the writes and transactions take turns on a promise queue, as a user of one
 * client has to; reads run at once.
 */
async function drizzleLibsqlKind(): Promise<OrmKind> {
  // In memory: the store refuses a libSQL file (docs/stores.md, the libSQL paragraph).
  const client = createLibsqlClient({ url: ':memory:' });
  const db = drizzleLibsql({ client });
  type Async = { run(query: SQL): Promise<{ rows: unknown[]; rowsAffected: number }> };
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };
  const run = async (sql: string, params: readonly unknown[], tx?: unknown): Promise<RawResult> => {
    const runner = ((tx as Async | undefined) ?? db) as unknown as Async;
    const result = await runner.run(drizzleStatement(sql, params));
    const rows = result.rows as Array<Record<string, unknown>>;
    // RETURNING: the rows returned (libSQL counts no change for an UPDATE … RETURNING).
    return { rows, affected: /\bRETURNING\b/i.test(sql) ? rows.length : result.rowsAffected };
  };
  return {
    name: 'Drizzle over libSQL (in memory)',
    dialect: 'sqlite',
    connection: fromDrizzle(db),
    query: (sql, params, tx) =>
      tx !== undefined || /^\s*SELECT\b(?![\s\S]*\bRETURNING\b)/i.test(sql)
        ? run(sql, params, tx)
        : inTurn(() => run(sql, params)),
    transact: (statements) =>
      inTurn(() =>
        db.transaction(
          async (tx) => {
            for (const [sql, params] of statements) await run(sql, params, tx);
          },
          { behavior: 'immediate' },
        ),
      ),
    close: async () => client.close(),
  };
}

type PrismaRaw = {
  $queryRawUnsafe(sql: string, ...values: unknown[]): Promise<unknown>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
};
type PrismaLike = PrismaRaw & {
  $transaction(work: (tx: PrismaRaw) => Promise<void>): Promise<void>;
  $disconnect(): Promise<void>;
};

function prisma(name: string, dialect: SqlDialect, client: PrismaLike): OrmKind {
  const kind: OrmKind = {
    name,
    dialect,
    connection: fromPrisma(client),
    async query(sql, params, tx) {
      const runner = (tx as PrismaRaw | undefined) ?? client;
      const text = dialect === 'postgres' ? numbered(sql) : sql;
      if (READS.test(sql)) {
        const rows = (await runner.$queryRawUnsafe(text, ...params)) as Array<
          Record<string, unknown>
        >;
        return { rows, affected: rows.length };
      }
      return { rows: [], affected: await runner.$executeRawUnsafe(text, ...params) };
    },
    transact: (statements) => client.$transaction((tx) => inOrder(kind.query, tx, statements)),
    close: () => client.$disconnect(),
  };
  return kind;
}

/** Every ORM connection kind the store accepts, opened on `targets`. */
export async function openOrmKinds(targets: KindTargets): Promise<OrmKind[]> {
  const pgPool = async (db: string) =>
    new pg.Pool({ connectionString: await targets.postgres(db), max: POOL });
  const mysqlUrl = (db: string) => targets.mysql(db);
  const kinds: OrmKind[] = [];
  kinds.push(
    kysely(
      'Kysely, PostgreSQL',
      'postgres',
      new Kysely({ dialect: new PostgresDialect({ pool: await pgPool('kysely_pg') }) }),
    ),
  );
  kinds.push(
    kysely(
      'Kysely, MariaDB',
      'mysql',
      new Kysely({
        dialect: new MysqlDialect({
          pool: mysql.createPool({ uri: await mysqlUrl('kysely_mysql'), connectionLimit: POOL }),
        }),
      }),
    ),
  );
  kinds.push(
    kysely(
      'Kysely, SQLite',
      'sqlite',
      new Kysely({
        dialect: new SqliteDialect({ database: sqliteFile(targets.sqlite('kysely')) }),
      }),
    ),
  );
  const drizzlePool = await pgPool('drizzle_pg');
  kinds.push(
    drizzleServer(
      'Drizzle over node-postgres',
      'postgres',
      drizzlePg(drizzlePool) as unknown as DrizzleServer,
      () => drizzlePool.end(),
    ),
  );
  const drizzleJs = postgres(await targets.postgres('drizzle_pgjs'), {
    max: POOL,
    onnotice: () => undefined,
  });
  kinds.push(
    drizzleServer(
      'Drizzle over postgres-js',
      'postgres',
      drizzlePostgresJs(drizzleJs) as unknown as DrizzleServer,
      () => drizzleJs.end(),
    ),
  );
  const drizzleMysqlPool = mysqlPromise.createPool({
    uri: await mysqlUrl('drizzle_mysql'),
    connectionLimit: POOL,
  });
  kinds.push(
    drizzleServer(
      'Drizzle over mysql2, MariaDB',
      'mysql',
      drizzleMysql(drizzleMysqlPool) as unknown as DrizzleServer,
      () => drizzleMysqlPool.end(),
    ),
  );
  kinds.push(drizzleSqliteKind(targets.sqlite('drizzle')));
  kinds.push(await drizzleLibsqlKind());
  kinds.push(
    prisma(
      'Prisma over adapter-pg',
      'postgres',
      new PrismaPostgres({
        adapter: new PrismaPg({
          connectionString: await targets.postgres('prisma_pg'),
          max: POOL,
        }),
      }) as unknown as PrismaLike,
    ),
  );
  const mariadb = new URL(await mysqlUrl('prisma_mysql'));
  kinds.push(
    prisma(
      'Prisma over adapter-mariadb',
      'mysql',
      new PrismaMysql({
        adapter: new PrismaMariaDb({
          host: mariadb.hostname,
          port: Number(mariadb.port),
          user: mariadb.username,
          password: decodeURIComponent(mariadb.password),
          database: mariadb.pathname.slice(1),
          connectionLimit: POOL,
        }),
      }) as unknown as PrismaLike,
    ),
  );
  kinds.push(
    prisma(
      'Prisma over adapter-better-sqlite3',
      'sqlite',
      new PrismaSqlite({
        adapter: new PrismaBetterSqlite3({ url: `file:${targets.sqlite('prisma')}` }),
      }) as unknown as PrismaLike,
    ),
  );
  const sql = postgres(await targets.postgres('pgjs'), { max: POOL, onnotice: () => undefined });
  const pgjs: OrmKind = {
    name: 'postgres-js',
    dialect: 'postgres',
    connection: fromPostgres(sql),
    async query(text, params, tx) {
      const runner = (tx as postgres.Sql | undefined) ?? sql;
      const rows = await runner.unsafe(
        numbered(text),
        params as postgres.ParameterOrJSON<never>[],
        {
          prepare: true,
        },
      );
      return { rows: [...rows], affected: count(rows.count) };
    },
    transact: async (statements) =>
      void (await sql.begin((tx) => inOrder(pgjs.query, tx, statements))),
    close: () => sql.end(),
  };
  kinds.push(pgjs);
  return kinds;
}
