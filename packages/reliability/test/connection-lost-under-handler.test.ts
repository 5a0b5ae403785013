/**
 * The database ended the connection of the guard's transaction while the handler ran (a restart,
 * `pg_terminate_backend`, `KILL`): the handler's own next statement failed with the driver's
 * error, the handler passed it on, and the caller got the handler's 500 (with the driver's text in
 * it) instead of the store failure it is: 503 with `Retry-After`, so the provider retries. Here the
 * backend of that transaction is killed from another connection, on PostgreSQL and MariaDB
 * (the knex executors: packages/sql/test/regression/connection-lost-under-handler.test.ts).
 */
import express from 'express';
import mysql from 'mysql2/promise';
import pg from 'pg';
import request from 'supertest';
import { type GuardEvent, IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, type SqlConnection, SqlStore } from '@webhook-idempotency/sql';
import { watchHostProcess } from '@webhook-idempotency/test-support/host-process';

const unhandled = watchHostProcess();

/** One connection kind: how to open it, and how a handler asks its transaction for its backend id. */
interface Kind {
  readonly name: string;
  readonly dialect: 'postgres' | 'mysql';
  open(url: string): { db: SqlConnection; close(): Promise<void> };
  /** Runs `sql` through the handler's transaction handle; resolves with the first row. */
  query(tx: unknown, sql: string, params: unknown[]): Promise<Record<string, unknown>>;
}

const kinds: Kind[] = [
  {
    name: 'pg Pool',
    dialect: 'postgres',
    open: (url) => {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      return { db: pool, close: () => pool.end() };
    },
    query: async (tx, sql, params) => (await (tx as pg.PoolClient).query(sql, params)).rows[0],
  },
  {
    name: 'mysql2 pool',
    dialect: 'mysql',
    open: (url) => {
      const pool = mysql.createPool({ uri: url, connectionLimit: 4 });
      return { db: pool, close: () => pool.end() };
    },
    query: async (tx, sql, params) =>
      ((await (tx as mysql.PoolConnection).query(sql, params))[0] as Record<string, unknown>[])[0]!,
  },
];

const urls: Record<'postgres' | 'mysql', string> = { postgres: '', mysql: '' };
const DATABASE = 'wi_lost_under_handler';

/** A fresh database of `dialect` on the server jest's global setup started; returns its URL. */
async function freshDatabase(dialect: 'postgres' | 'mysql'): Promise<string> {
  const url = new URL(dialect === 'postgres' ? process.env.WI_PG_URL! : process.env.WI_MYSQL_URL!);
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
  } else {
    const admin = await mysql.createConnection(url.toString());
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
    await admin.end();
  }
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

beforeAll(async () => {
  urls.postgres = await freshDatabase('postgres');
  urls.mysql = await freshDatabase('mysql');
  const admin = new pg.Pool({ connectionString: urls.postgres });
  await Schema.createTable(admin);
  await admin.query('CREATE TABLE effects (id VARCHAR(64) PRIMARY KEY)');
  await admin.end();
  const madmin = mysql.createPool({ uri: urls.mysql });
  await Schema.createTable(madmin);
  await madmin.query('CREATE TABLE effects (id VARCHAR(64) PRIMARY KEY)');
  await madmin.end();
});

/** Ends backend `id` from another connection and waits until it is gone. */
async function kill(dialect: 'postgres' | 'mysql', id: number): Promise<void> {
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: urls.postgres });
    await admin.connect();
    // With a timeout, pg_terminate_backend waits until the backend has exited.
    await admin.query('SELECT pg_terminate_backend($1, 5000)', [id]);
    await admin.end();
    return;
  }
  const admin = await mysql.createConnection(urls.mysql);
  await admin.query(`KILL ${Number(id)}`);
  for (;;) {
    const [rows] = await admin.query(
      'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID = ?',
      [id],
    );
    if (Number((rows as { n: number }[])[0]!.n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await admin.end();
}

it.each(kinds)(
  '$name: a killed transaction connection under the handler answers 503 + Retry-After, never the handler error',
  async (kind) => {
    const { db, close } = kind.open(urls[kind.dialect]);
    const events: GuardEvent[] = [];
    const guard = new IdempotencyGuard(new SqlStore(db, { acquireTimeoutMs: 2000 }), {
      transactional: true,
      staleAfterSeconds: 5,
      onEvent: (event) => events.push(event),
    });
    const id = `evt_${kind.name.replace(/\W/g, '_')}`;
    const insert =
      kind.dialect === 'postgres'
        ? 'INSERT INTO effects (id) VALUES ($1)'
        : 'INSERT INTO effects (id) VALUES (?)';
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent({ guard, provider: 'p', key: () => id, fingerprint: false }),
      async (req, res, next) => {
        try {
          const tx = req.idempotency!.transaction;
          const row = await kind.query(
            tx,
            kind.dialect === 'postgres'
              ? 'SELECT pg_backend_pid() AS id'
              : 'SELECT CONNECTION_ID() AS id',
            [],
          );
          await kill(kind.dialect, Number(row.id));
          await kind.query(tx, insert, [id]);
          res.json({ ok: true });
        } catch (error) {
          next(error);
        }
      },
    );
    app.use(
      (
        error: unknown,
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        res.status(500).json({ handlerError: String(error) });
      },
    );
    try {
      const answer = await request(app)
        .post('/hook')
        .set('content-type', 'application/json')
        .send('{}');
      expect([answer.status, answer.headers['retry-after']]).toEqual([503, '1']);
      expect(answer.body.code).toBe('ERR_IDEMPOTENCY_STORE');
      expect(answer.text).not.toMatch(/terminat|ECONN|PROTOCOL|closed state|killed|handlerError/i);
      const storeErrors = events.filter((event) => event.type === 'store-error');
      expect(storeErrors).toEqual([expect.objectContaining({ operation: 'transaction' })]);
      // The handler's own error is kept as the event's error (the cause), not lost.
      expect(String((storeErrors[0] as { error: unknown }).error)).toMatch(/./);
      expect((await guard.find(new RequestKey('p', id)))?.status).toBe('failed');
      expect(unhandled).toEqual([]);
    } finally {
      await close();
    }
  },
);
