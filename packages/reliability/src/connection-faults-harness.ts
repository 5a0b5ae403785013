/**
 * @module The connection-fault harness: a per-file database on the servers of jest's global
 * setup, a real Express app guarded by `idempotent()` over a `SqlStore` whose pool reaches the
 * database through a {@link FaultProxy}, and direct (unproxied) reads of the business rows and
 * receipts. The HTTP client is in connection-faults-client.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuardEvent } from '@webhook-idempotency/core';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import express, { type NextFunction, type Request, type Response } from 'express';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { FaultProxy } from './fault-proxy';

/** The two server databases the proxy sits in front of. */
export type FaultDialect = 'postgres' | 'mysql';
/** Transactional completion or plain mode ("at most once per claim"). */
export type FaultMode = 'transactional' | 'plain';

/** The receipts table of the fault tests. */
export const RECEIPTS_TABLE = 'fault_receipts';
/** The business table: one row per handler run that committed (no unique index, so a double effect shows as two rows). */
export const ORDERS_TABLE = 'fault_orders';
/** The provider name of every delivery. */
export const PROVIDER = 'faults';

type MysqlPool = mysql.Pool;

function serverUrl(dialect: FaultDialect): string {
  const name = dialect === 'postgres' ? 'WI_PG_URL' : 'WI_MYSQL_URL';
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: run the fault tests through jest, whose global setup starts the servers`,
    );
  return value;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A fresh database named `database` on the `dialect` server of this test run, with the receipts
 * and business tables; returns its URL (direct, not through a proxy).
 */
export async function createFaultDatabase(
  dialect: FaultDialect,
  database: string,
): Promise<string> {
  const admin = serverUrl(dialect);
  if (dialect === 'postgres') {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${database}"`);
    } finally {
      await client.end();
    }
    const url = withDatabase(admin, database);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await Schema.createTable(pool, { table: RECEIPTS_TABLE });
      await pool.query(
        `CREATE TABLE ${ORDERS_TABLE} (n SERIAL PRIMARY KEY, event_id VARCHAR(160) NOT NULL)`,
      );
    } finally {
      await pool.end();
    }
    return url;
  }
  const connection = await mysql.createConnection(admin);
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  } finally {
    await connection.end();
  }
  const url = withDatabase(admin, database);
  const pool = mysql.createPool({ uri: url, connectionLimit: 1 });
  try {
    await Schema.createTable(pool, { table: RECEIPTS_TABLE });
    await pool.query(
      `CREATE TABLE ${ORDERS_TABLE} (n INT AUTO_INCREMENT PRIMARY KEY, event_id VARCHAR(160) NOT NULL) ENGINE=InnoDB`,
    );
  } finally {
    await pool.end();
  }
  return url;
}

/** What a receipt looks like from outside the app. */
export interface ReceiptState {
  readonly status: string;
  readonly attempts: number;
}

/** Direct reads of the database, bypassing the proxy and the app. */
export interface Inspector {
  /** Business rows written for `id`. */
  rows(id: string): Promise<number>;
  /** The receipt of `id`, or `null`. */
  receipt(id: string): Promise<ReceiptState | null>;
  close(): Promise<void>;
}

/** An {@link Inspector} on its own small pool to `url`. */
export function inspect(dialect: FaultDialect, url: string): Inspector {
  const receiptSql = `SELECT status, attempts FROM ${RECEIPTS_TABLE} WHERE provider = ? AND external_id = ?`;
  const rowsSql = `SELECT COUNT(*) AS n FROM ${ORDERS_TABLE} WHERE event_id = ?`;
  const toReceipt = (row: Record<string, unknown> | undefined): ReceiptState | null =>
    row ? { status: String(row.status), attempts: Number(row.attempts) } : null;
  if (dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    return {
      rows: async (id) => Number((await pool.query(rowsSql.replace('?', '$1'), [id])).rows[0].n),
      receipt: async (id) =>
        toReceipt(
          (await pool.query(receiptSql.replace('?', '$1').replace('?', '$2'), [PROVIDER, id]))
            .rows[0],
        ),
      close: () => pool.end(),
    };
  }
  const pool = mysql.createPool({ uri: url, connectionLimit: 2 });
  const select = async (sql: string, params: unknown[]) =>
    (await pool.query(sql, params))[0] as Array<Record<string, unknown>>;
  return {
    rows: async (id) => Number((await select(rowsSql, [id]))[0]!.n),
    receipt: async (id) => toReceipt((await select(receiptSql, [PROVIDER, id]))[0]),
    close: () => pool.end(),
  };
}

/** Options of {@link startFaultApp}. */
export interface FaultAppOptions {
  readonly dialect: FaultDialect;
  readonly mode: FaultMode;
  /** The database URL (direct); the app's pool goes through a new proxy to it. */
  readonly url: string;
  readonly staleAfterSeconds: number;
  readonly acquireTimeoutMs: number;
}

/** A running app whose database connections all pass through {@link FaultApp.proxy}. */
export interface FaultApp {
  readonly proxy: FaultProxy;
  /** `http://127.0.0.1:<port>` of the Express server. */
  readonly baseUrl: string;
  /** Every guard event, in order. */
  readonly events: GuardEvent[];
  /** Errors the app's pool reported on its `'error'` event (idle clients; the documented app-side listener). */
  readonly poolErrors: Error[];
  /** Called by the handler right after its business write and before it answers. */
  afterWrite: ((id: string) => Promise<void>) | undefined;
  /** How many connections the app's pool has handed out and not got back. */
  borrowed(): number;
  /** Stops the server, ends the pool (bounded: a leaked connection must not hang the test) and the proxy. */
  close(): Promise<void>;
}

/** Waits for `promise` at most `ms`; true when it settled in time. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** mysql2 keeps its connection lists on the core pool (`pool.pool`); read-only use, for the leak check. */
function mysqlBorrowed(pool: MysqlPool): number {
  const core = (
    pool as unknown as {
      pool: { _allConnections: { length: number }; _freeConnections: { length: number } };
    }
  ).pool;
  return core._allConnections.length - core._freeConnections.length;
}

/**
 * Starts a proxy to the database, a pool through it, a `SqlStore` on the pool and an Express
 * server with one guarded route, `POST /hooks/:id`, whose handler inserts one business row for
 * `id` (through `req.idempotency.transaction` in transactional mode, through the pool in plain
 * mode), calls {@link FaultApp.afterWrite}, then answers `200 {"id": …, "ok": true}`.
 */
export async function startFaultApp(options: FaultAppOptions): Promise<FaultApp> {
  const { dialect, mode, url, staleAfterSeconds, acquireTimeoutMs } = options;
  const target = new URL(url);
  const proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port) });
  const proxied = proxy.urlFor(url);
  const events: GuardEvent[] = [];
  const poolErrors: Error[] = [];

  let insertPlain: (id: string) => Promise<unknown>;
  let insertIn: (transaction: unknown, id: string) => Promise<unknown>;
  let store: SqlStore;
  let borrowed: () => number;
  let endPool: () => Promise<void>;
  if (dialect === 'postgres') {
    const pool = new pg.Pool({
      connectionString: proxied,
      max: 4,
      connectionTimeoutMillis: 1000,
      idleTimeoutMillis: 2000,
    });
    // The listener every pg application must have (idle clients); the store owns its borrowed ones.
    pool.on('error', (error) => poolErrors.push(error));
    const sql = `INSERT INTO ${ORDERS_TABLE} (event_id) VALUES ($1)`;
    insertPlain = (id) => pool.query(sql, [id]);
    insertIn = (transaction, id) => (transaction as pg.PoolClient).query(sql, [id]);
    store = new SqlStore(pool, { table: RECEIPTS_TABLE, acquireTimeoutMs });
    borrowed = () => pool.totalCount - pool.idleCount;
    endPool = () => pool.end();
  } else {
    const pool = mysql.createPool({ uri: proxied, connectionLimit: 4, connectTimeout: 1000 });
    const sql = `INSERT INTO ${ORDERS_TABLE} (event_id) VALUES (?)`;
    insertPlain = (id) => pool.query(sql, [id]);
    insertIn = (transaction, id) => (transaction as mysql.PoolConnection).query(sql, [id]);
    store = new SqlStore(pool, { table: RECEIPTS_TABLE, acquireTimeoutMs });
    borrowed = () => mysqlBorrowed(pool);
    endPool = () => pool.end();
  }

  const app = express();
  const faultApp: FaultApp = {
    proxy,
    baseUrl: '',
    events,
    poolErrors,
    afterWrite: undefined,
    borrowed,
    close: async () => undefined,
  };
  app.post(
    '/hooks/:id',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: PROVIDER,
      key: (req) => String(req.params.id),
      transactional: mode === 'transactional',
      staleAfterSeconds,
      onEvent: (event) => events.push(event),
    }),
    async function handler(req: Request, res: Response) {
      const id = String(req.params.id);
      if (mode === 'transactional') await insertIn(req.idempotency!.transaction, id);
      else await insertPlain(id);
      await faultApp.afterWrite?.(id);
      res.status(200).json({ id, ok: true });
    },
  );
  app.use(idempotencyErrors());
  // The app's own last error handler: whatever reaches it is a 500 carrying the error's text,
  // so a test that sees one can say which error escaped the guard.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    res
      .status(500)
      .json({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  });

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  Object.assign(faultApp, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await within(endPool(), 2000);
      await proxy.close();
    },
  });
  return faultApp;
}
