/**
 * Issue 8, measured breakage 1: a PostgreSQL restart killed every app process ("Unhandled 'error'
 * event … Connection terminated unexpectedly"): the store borrowed clients from the pool without
 * an 'error' listener while pg-pool had removed its own. What a restart does to the app is what
 * `pg_terminate_backend` does to each of its connections: the server ends them. Here that happens
 * while a transactional handler holds its transaction and while other requests are in flight:
 * the process stays up, the callers get 503 + Retry-After (never the driver's message, nor the
 * handler's error answer for its statement the lost connection failed), and the
 * next delivery runs on untouched data.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { watchHostProcess } from '@webhook-idempotency/test-support/host-process';

const unhandled = watchHostProcess();
const DATABASE = 'wi_reliability_terminated';

async function freshDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.WI_PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const url = new URL(process.env.WI_PG_URL!);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

async function terminateAll(): Promise<number> {
  const admin = new pg.Client({ connectionString: process.env.WI_PG_URL });
  await admin.connect();
  const { rowCount } = await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [DATABASE],
  );
  await admin.end();
  return rowCount ?? 0;
}

it('connections ended by the server under open transactions: no crash, 503 + Retry-After, then exactly one effect', async () => {
  const pool = new pg.Pool({ connectionString: await freshDatabase(), max: 6 });
  const poolErrors: Error[] = [];
  pool.on('error', (error) => poolErrors.push(error)); // as the docs ask: covers idle clients only
  await Schema.createTable(pool);
  await pool.query('CREATE TABLE effects (id TEXT PRIMARY KEY)');
  const guard = new IdempotencyGuard(new SqlStore(pool, { acquireTimeoutMs: 2000 }), {
    transactional: true,
    staleAfterSeconds: 5,
  });
  let inside!: () => void;
  const handlerInside = new Promise<void>((resolve) => (inside = resolve));
  let proceed!: () => void;
  const mayProceed = new Promise<void>((resolve) => (proceed = resolve));

  const app = express();
  app.post(
    '/hook',
    idempotent({ guard, provider: 'p', key: (req) => req.get('x-event-id'), fingerprint: false }),
    async (req, res, next) => {
      try {
        const tx = req.idempotency!.transaction as pg.PoolClient;
        await tx.query('INSERT INTO effects (id) VALUES ($1)', [req.get('x-event-id')]);
        if (req.get('x-event-id') === 'held') {
          inside();
          await mayProceed;
        }
        await tx.query('SELECT 1');
        res.json({ ok: true });
      } catch (error) {
        next(error);
      }
    },
  );
  app.use(
    (error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ handlerError: String(error) });
    },
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const post = (id: string) =>
    fetch(`http://127.0.0.1:${port}/hook`, {
      method: 'POST',
      headers: { 'x-event-id': id, 'content-type': 'application/json' },
      body: '{}',
    }).then(async (response) => ({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
    }));
  try {
    const held = post('held');
    await handlerInside;
    expect(await terminateAll()).toBeGreaterThan(0);
    proceed();
    const answer = await held;
    // The handler's own next statement failed because the connection under its transaction was
    // ended: a store failure (503), never a crash, never the driver's text from the guard.
    expect([answer.status, answer.retryAfter]).toEqual([503, '1']);
    expect(answer.body).not.toMatch(/terminat|ECONN|127\.0\.0\.1|handlerError/);
    // Wait out the background retries of the `fail` write, then redeliver.
    let final = await post('held');
    for (let i = 0; i < 20 && final.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      final = await post('held');
    }
    expect(final.status).toBe(200);
    expect(
      (await pool.query("SELECT count(*)::int AS n FROM effects WHERE id = 'held'")).rows[0].n,
    ).toBe(1);
    expect(await guard.find(new RequestKey('p', 'held'))).toMatchObject({ status: 'completed' });
    expect(unhandled).toEqual([]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await pool.end();
  }
});
