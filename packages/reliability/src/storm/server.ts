/**
 * @module One app server of the storm, run as its own process (`fork` with esbuild-register): the
 * real Express adapter over a `SqlStore` in transactional mode, with a handler that writes one
 * business row per delivery id through the guard's transaction and answers a fresh random token.
 * It registers no `uncaughtException` handler: a crash must end the process, and the parent counts it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { Server } from 'node:http';
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import type { Store } from '@webhook-idempotency/core';
import { SqlStore } from '@webhook-idempotency/sql';
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

function open(config: StormServerConfig): { store: Store<unknown>; insert: Insert } {
  const sql = `INSERT INTO ${config.effects} (event_id, token, pid) VALUES (?, ?, ?)`;
  if (config.dialect === 'postgres') {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      connectionTimeoutMillis: 5_000,
    });
    // What pg's docs tell every application to do: an idle client's error must not crash the process.
    pool.on('error', (error) =>
      process.stderr.write(
        `[storm server ${process.pid}] idle pg client error: ${error.message}\n`,
      ),
    );
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
  const db = new Database(config.url, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
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
      res.json({ id, token, pid: process.pid, attempts: req.idempotency!.attempts });
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
