/** @module What the storm's parent and its server processes agree on: the server's settings and the receipts' provider. */
import type { SqlDialect } from '@webhook-idempotency/sql';

/** The receipts' provider name of every storm delivery. */
export const STORM_PROVIDER = 'storm';

/** Printed (synchronously, on stdout) just before a server kills itself inside a handler, followed by the delivery id. */
export const DYING_MARKER = 'STORM_DYING_IN_HANDLER';

/** Settings of one storm server process, passed as its only argument (JSON). */
/**
 * How a storm server talks to its database: `driver` is the plain pool or file handle (pg,
 * mysql2, better-sqlite3); `orm` the ORM the storm proves on that database (Kysely over a pg Pool
 * on PostgreSQL, Prisma 7 over adapter-mariadb on MariaDB, Drizzle over better-sqlite3 on SQLite),
 * whose own transaction object the handler writes through.
 */
export type StormConnection = 'driver' | 'orm';

/** The ORM a storm's `orm` servers use, per dialect (the summary and test names print it). */
export const STORM_ORM: Record<SqlDialect, string> = {
  postgres: 'Kysely',
  mysql: 'Prisma',
  sqlite: 'Drizzle',
};

export interface StormServerConfig {
  readonly dialect: SqlDialect;
  readonly connection: StormConnection;
  /** Server URL of the database, or the SQLite file's path. */
  readonly url: string;
  /** Loopback port to listen on (the same one after a restart). */
  readonly port: number;
  /** The guard's `staleAfterSeconds`: small, so that takeovers after a SIGKILL happen within the run. */
  readonly staleAfterSeconds: number;
  /** The business table the handler inserts one row per first run into. */
  readonly effects: string;
  /** Connections in the server's pg / mysql2 pool. */
  readonly poolSize: number;
  /**
   * Milliseconds the handler works after its business write, inside the open transaction (a call
   * to another service, say): kills of a server or the database then meet open transactions.
   */
  readonly handlerDelayMs: number;
}

/** The client a Redis storm server reaches Redis with. */
export type RedisStormConnection = 'ioredis' | 'node-redis';

/** Settings of one Redis storm server process (`redis-server.ts`), passed as its only argument (JSON). */
export interface RedisStormServerConfig {
  readonly connection: RedisStormConnection;
  /** The Redis the store keeps its receipts in (the storm kills and restarts it). */
  readonly redisUrl: string;
  /** The store's key prefix. */
  readonly prefix: string;
  /** Loopback port to listen on (the same one after a restart). */
  readonly port: number;
  /** The guard's `staleAfterSeconds`: small, so that takeovers after a SIGKILL happen within the run. */
  readonly staleAfterSeconds: number;
  /** The store's `commandTimeoutMs`: how long a call waits for a Redis that is down. */
  readonly commandTimeoutMs: number;
  /**
   * The effect ledger, a SQLite file beside the run, independent of the store under test: the
   * handler's one effect is a row (id, the run's attempt, its token) written before it answers.
   */
  readonly ledger: string;
  /** Milliseconds the handler works after its effect, before its result is recorded. */
  readonly handlerDelayMs: number;
}

/** The client a DynamoDB storm server gives the store: the SDK's client, or a document client made from it. */
export type DynamoStormConnection = 'client' | 'document client';

/**
 * Where a DynamoDB storm's handler puts its one effect: a row of a SQLite ledger beside the run
 * (the store without transactions), or an item of a DynamoDB table written in the same
 * `TransactWriteItems` as the receipt's completion (transactional mode).
 */
export type DynamoStormEffects =
  | { readonly kind: 'ledger'; readonly file: string }
  | { readonly kind: 'table'; readonly table: string };

/** Settings of one DynamoDB storm server process (`dynamodb-server.ts`), passed as its only argument (JSON). */
export interface DynamoStormServerConfig {
  readonly connection: DynamoStormConnection;
  /** The DynamoDB-compatible server (the storm kills and restarts it). */
  readonly endpoint: string;
  /** The receipts table. */
  readonly table: string;
  /** Loopback port to listen on (the same one after a restart). */
  readonly port: number;
  /** The guard's `staleAfterSeconds`: small, so that takeovers after a SIGKILL happen within the run. */
  readonly staleAfterSeconds: number;
  /** The store's `requestTimeoutMs`: how long a call waits for a server that is down. */
  readonly requestTimeoutMs: number;
  readonly effects: DynamoStormEffects;
  /** Milliseconds the handler works after its effect, before its result is recorded. */
  readonly handlerDelayMs: number;
}
