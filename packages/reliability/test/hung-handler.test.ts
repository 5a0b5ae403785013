/**
 * Issue 8, measured breakage 3 and failure modes 1, 2: on the embedded default (better-sqlite3,
 * transactional) one handler that never answers used to freeze every webhook: a different key
 * and a replay of a completed key both hung for as long as it did. Now, on every adapter: the
 * hung delivery is answered 503 + Retry-After at the handler deadline (its transaction rolled
 * back, its receipt failed, its late answer dropped), a replay of a completed key is answered at
 * once, and a new key runs as soon as the hung transaction is gone. A nested guard on the same
 * Database inside a transactional handler runs as a savepoint instead of waiting on itself.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Database from 'better-sqlite3';
import express from 'express';
import fastify from 'fastify';
import Koa from 'koa';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { withIdempotency } from '@webhook-idempotency/fetch';
import { idempotent as honoIdempotent } from '@webhook-idempotency/hono';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { idempotent as expressIdempotent } from '@webhook-idempotency/express';
import { fastifyIdempotency } from '@webhook-idempotency/fastify';
import { idempotent as koaIdempotent } from '@webhook-idempotency/koa';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchHostProcess } from '@webhook-idempotency/test-support/host-process';

const unhandled = watchHostProcess();
const never = new Promise<never>(() => undefined);
type Guard = IdempotencyGuard<Database.Database>;
/** What the route does for a delivery id: answer, hang, or run a nested guard on the same Database. */
type Work = (id: string, tx: Database.Database, guard: Guard) => Promise<unknown>;

function database(): Database.Database {
  const db = new Database(
    join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'hung-')), 'hooks.db'),
  );
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE effects (id TEXT PRIMARY KEY)');
  return db;
}

const key = (headers: Record<string, unknown>) => headers['x-event-id'] as string;
const apps: Record<string, (guard: Guard, work: Work) => Server | Promise<Server>> = {
  express: (guard, work) => {
    const app = express();
    app.post(
      '/hook',
      expressIdempotent({
        guard,
        provider: 'p',
        key: (req) => key(req.headers),
        fingerprint: false,
      }),
      async (req, res) => {
        const body = await work(
          key(req.headers),
          req.idempotency!.transaction as Database.Database,
          guard,
        );
        res.json(body);
      },
    );
    return app.listen(0, '127.0.0.1');
  },
  fastify: async (guard, work) => {
    const app = fastify();
    await app.register(fastifyIdempotency, {
      guard,
      provider: 'p',
      key: (req) => key(req.headers),
      fingerprint: false,
    });
    app.post('/hook', async (request) =>
      work(key(request.headers), request.idempotency!.transaction as Database.Database, guard),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app.server;
  },
  koa: (guard, work) => {
    const app = new Koa();
    app.use(
      koaIdempotent({ guard, provider: 'p', key: (ctx) => key(ctx.headers), fingerprint: false }),
    );
    app.use(async (ctx) => {
      ctx.body = await work(
        key(ctx.headers),
        ctx.state.idempotency!.transaction as Database.Database,
        guard,
      );
    });
    return app.listen(0, '127.0.0.1');
  },
  fetch: (guard, work) => {
    const guarded = withIdempotency(
      {
        guard,
        provider: 'p',
        key: (request) => request.headers.get('x-event-id'),
        fingerprint: false,
      },
      async (request, idempotency) => {
        const id = request.headers.get('x-event-id') ?? '';
        return Response.json(await work(id, idempotency!.transaction as Database.Database, guard));
      },
    );
    return (createAdaptorServer({ fetch: (request) => guarded(request) }) as Server).listen(
      0,
      '127.0.0.1',
    );
  },
  hono: (guard, work) => {
    const app = new Hono();
    app.post(
      '/hook',
      honoIdempotent({
        guard,
        provider: 'p',
        key: (c) => c.req.header('x-event-id'),
        fingerprint: false,
      }),
      async (c) =>
        c.json(
          (await work(
            c.req.header('x-event-id') ?? '',
            c.get('idempotency')!.transaction as Database.Database,
            guard,
          )) as object,
        ),
    );
    return (createAdaptorServer({ fetch: app.fetch }) as Server).listen(0, '127.0.0.1');
  },
};

async function post(
  server: Server,
  id: string,
): Promise<{ status: number; body: string; headers: Headers; ms: number }> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const started = Date.now();
  const response = await fetch(`http://127.0.0.1:${port}/hook`, {
    method: 'POST',
    headers: { 'x-event-id': id, 'content-type': 'application/json' },
    body: '{}',
  });
  return {
    status: response.status,
    body: await response.text(),
    headers: response.headers,
    ms: Date.now() - started,
  };
}

describe.each(Object.keys(apps))('a hung transactional handler on better-sqlite3 (%s)', (name) => {
  let db: Database.Database;
  let server: Server;
  let guard: Guard;
  const ran: string[] = [];
  beforeAll(async () => {
    db = database();
    await Schema.createTable(db);
    guard = new IdempotencyGuard(new SqlStore(db, { acquireTimeoutMs: 5000 }), {
      transactional: true,
      staleAfterSeconds: 4,
      handlerTimeoutSeconds: 1,
    });
    server = await apps[name]!(guard, async (id, tx, own) => {
      ran.push(id);
      if (id.startsWith('hang')) return never;
      if (id.startsWith('nested')) {
        // A second guard call on the same Database from inside the open transaction.
        const inner = await own.run(new RequestKey('inner', id), ({ transaction }) => {
          transaction!.prepare('INSERT INTO effects (id) VALUES (?)').run(`inner-${id}`);
          return 'inner done';
        });
        return {
          inner: inner.response,
          found: (await own.find(new RequestKey('inner', id)))?.status,
        };
      }
      tx.prepare('INSERT INTO effects (id) VALUES (?)').run(id);
      return { id };
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    db.close();
  });

  it('answers replays at once and new keys after the deadline, and the hung delivery 503 at its deadline', async () => {
    expect((await post(server, 'done')).status).toBe(200);
    const hung = post(server, 'hang-1');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const [replay, fresh] = await Promise.all([post(server, 'done'), post(server, 'fresh')]);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.ms).toBeLessThan(500);
    expect(fresh.status).toBe(200);
    expect(JSON.parse(fresh.body)).toEqual({ id: 'fresh' });
    const answer = await hung;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(answer.body).code).toBe('ERR_IDEMPOTENCY_HANDLER_TIMEOUT');
    expect(await guard.find(new RequestKey('p', 'hang-1'))).toMatchObject({
      status: 'failed',
      attempts: 1,
    });
    expect(db.prepare('SELECT id FROM effects ORDER BY id').all()).toEqual([
      { id: 'done' },
      { id: 'fresh' },
    ]);
    expect(unhandled).toEqual([]);
  });

  it('a nested guard on the same Database runs inside the transaction instead of waiting on it', async () => {
    const answer = await post(server, 'nested-1');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ inner: 'inner done', found: 'completed' });
    expect(db.prepare("SELECT id FROM effects WHERE id = 'inner-nested-1'").all()).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });
});
