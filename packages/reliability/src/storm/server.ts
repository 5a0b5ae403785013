/**
 * @module One app server of the storm, run as its own process (`fork` with test-support/register):
 * the real Express adapter over a `SqlStore` in transactional mode, on the plain driver or on the
 * ORM the storm proves on that database, with a handler that writes one business row per delivery
 * id through the guard's transaction and answers a fresh random token.
 * It registers no `uncaughtException` handler: a crash must end the process, and the parent counts it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { Server } from 'node:http';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import type { Store } from '@webhook-idempotency/core';
import { SqlStore } from '@webhook-idempotency/sql';
import { fromDrizzle } from '@webhook-idempotency/sql/drizzle';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import { fromPrisma } from '@webhook-idempotency/sql/prisma';
import { PrismaClient, type Prisma } from '../../prisma/generated/client';
import { DYING_MARKER, STORM_PROVIDER, type StormServerConfig } from './config';

/** The handler's own business write failed (database gone mid-transaction): the app answers 503. */
class BusinessWriteError extends Error {
  constructor(cause: unknown) {
    super(`business write failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'BusinessWriteError';
  }
}

type Insert = (transaction: unknown, id: string, token: string) => Promise<void>;

/** The business row, as the ORMs see it. */
interface EffectRow {
  event_id: string;
  token: string;
  pid: number;
}

/** A pg pool whose idle clients' errors are logged, as pg's docs tell every application to do. */
function pgPool(config: StormServerConfig): pg.Pool {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', (error) =>
    process.stderr.write(`[storm server ${process.pid}] idle pg client error: ${error.message}\n`),
  );
  return pool;
}

function sqliteFile(config: StormServerConfig): Database.Database {
  const db = new Database(config.url, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  return db;
}

/**
 * The storm's ORM on each database, written as its users write it: the handler gets the ORM's own
 * transaction object from the guard and inserts through its query builder.
 */
function openOrm(config: StormServerConfig): { store: Store<unknown>; insert: Insert } {
  if (config.dialect === 'postgres') {
    const pool = pgPool(config);
    // What docs/stores.md tells Kysely users on a pg Pool: pg-pool takes its own listener off a
    // checked-out client, and Kysely keeps its clients private, so each gets one of its own.
    pool.on('connect', (client) =>
      client.on('error', (error) =>
        process.stderr.write(`[storm server ${process.pid}] pg client error: ${error.message}\n`),
      ),
    );
    const db = new Kysely<Record<string, EffectRow>>({
      dialect: new PostgresDialect({ pool }),
    });
    return {
      store: new SqlStore(fromKysely(db)) as Store<unknown>,
      insert: async (transaction, id, token) =>
        void (await (transaction as Transaction<Record<string, EffectRow>>)
          .insertInto(config.effects)
          .values({ event_id: id, token, pid: process.pid })
          .execute()),
    };
  }
  if (config.dialect === 'mysql') {
    const url = new URL(config.url);
    const prisma = new PrismaClient({
      adapter: new PrismaMariaDb({
        host: url.hostname,
        port: Number(url.port),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: url.pathname.slice(1),
        connectionLimit: config.poolSize,
        connectTimeout: 5_000,
      }),
    });
    return {
      store: new SqlStore(fromPrisma(prisma)) as Store<unknown>,
      insert: async (transaction, id, token) =>
        void (await (transaction as Prisma.TransactionClient).stormEffect.create({
          data: { eventId: id, token, pid: process.pid },
        })),
    };
  }
  const effects = sqliteTable(config.effects, {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    eventId: text('event_id').notNull(),
    token: text('token').notNull(),
    pid: integer('pid').notNull(),
  });
  const db = drizzle(sqliteFile(config));
  return {
    store: new SqlStore(fromDrizzle(db)) as Store<unknown>,
    insert: async (transaction, id, token) =>
      void (transaction as BetterSQLite3Database)
        .insert(effects)
        .values({ eventId: id, token, pid: process.pid })
        .run(),
  };
}

function open(config: StormServerConfig): { store: Store<unknown>; insert: Insert } {
  if (config.connection === 'orm') return openOrm(config);
  const sql = `INSERT INTO ${config.effects} (event_id, token, pid) VALUES (?, ?, ?)`;
  if (config.dialect === 'postgres') {
    const pool = pgPool(config);
    const text = sql.replace(
      /\?/g,
      (() => {
        let n = 0;
        return () => `$${++n}`;
      })(),
    );
    return {
      store: new SqlStore(pool),
      insert: async (transaction, id, token) =>
        void (await (transaction as pg.PoolClient).query(text, [id, token, process.pid])),
    };
  }
  if (config.dialect === 'mysql') {
    const pool = mysql.createPool({
      uri: config.url,
      connectionLimit: config.poolSize,
      connectTimeout: 5_000,
    });
    return {
      store: new SqlStore(pool),
      insert: async (transaction, id, token) =>
        void (await (transaction as mysql.PoolConnection).query(sql, [id, token, process.pid])),
    };
  }
  const db = sqliteFile(config);
  return {
    store: new SqlStore(db),
    // The handle is the store's Database inside BEGIN IMMEDIATE (a guarded view of it: dead once the transaction ends).
    insert: async (transaction, id, token) =>
      void (transaction as Database.Database).prepare(sql).run(id, token, process.pid),
  };
}

function main(): void {
  const config = JSON.parse(process.argv[2]!) as StormServerConfig;
  const { store, insert } = open(config);
  // The parent's "die in the next handler": SIGKILL this process right after a business write,
  // before the transaction commits. The one sure way to kill a server between claim and completion.
  let dieInNextHandler = false;
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'die-in-handler') dieInNextHandler = true;
  });
  const app = express();
  app.post(
    '/webhook',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: STORM_PROVIDER,
      key: (req) => req.get('x-delivery-id'),
      keyDescription: 'X-Delivery-Id header',
      transactional: true,
      staleAfterSeconds: config.staleAfterSeconds,
    }),
    async (req: Request, res: Response) => {
      const id = req.get('x-delivery-id')!;
      const token = randomUUID();
      try {
        await insert(req.idempotency!.transaction, id, token);
      } catch (error) {
        throw new BusinessWriteError(error);
      }
      if (config.handlerDelayMs > 0)
        await new Promise((resolve) => setTimeout(resolve, config.handlerDelayMs));
      if (dieInNextHandler) {
        writeSync(1, `${DYING_MARKER} ${id}\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      res.json({
        id,
        token,
        pid: process.pid,
        via: config.connection,
        attempts: req.idempotency!.attempts,
      });
    },
  );
  app.use(idempotencyErrors());
  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const ours = error instanceof BusinessWriteError;
    // The app's own policy for its own failed write: "try again later". Anything else is a 500
    // carrying the error text, which the client records.
    if (ours) res.set('retry-after', '1');
    res.status(ours ? 503 : 500).json({
      code: ours ? 'APP_BUSINESS_WRITE_FAILED' : 'APP_UNEXPECTED_ERROR',
      message: error instanceof Error ? error.message : String(error),
    });
  };
  app.use(onError);

  const server: Server = app.listen(config.port, '127.0.0.1', () =>
    process.send?.({ type: 'ready', pid: process.pid }),
  );
  server.keepAliveTimeout = 30_000;
  server.on('error', (error) => {
    // Cannot listen (port still held): report and leave; the parent sees the exit.
    process.stderr.write(`[storm server ${process.pid}] listen failed: ${error.message}\n`);
    process.exit(3);
  });
  // The parent is gone (jest ended or crashed): do not outlive it.
  process.on('disconnect', () => process.exit(0));
}

main();
