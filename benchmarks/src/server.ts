/**
 * @module A benchmark server, run in its own process (pinned to its own core by the runner): one
 * webhook route on Express, Fastify or Koa, bare or guarded, reporting its own CPU time and RSS
 * over IPC so the load generator's work is not counted.
 *
 * `node server.ts <framework> <mode>`; mode `bare`, `memory`, `sqlite` or `peer` (Express only:
 * @node-idempotency/core with its memory storage, through the glue in peer.ts).
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore, type Store } from '@webhook-idempotency/core';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import fastifyIdempotency, { rawBodyJsonParser } from '@webhook-idempotency/fastify';
import { idempotent as koaIdempotent, rawBodyParser } from '@webhook-idempotency/koa';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { peerMiddleware } from './peer';

export type Framework = 'express' | 'fastify' | 'koa';
export type ServerMode = 'bare' | 'memory' | 'sqlite' | 'peer';

const ANSWER = { received: true };
const keyOf = (headers: Record<string, string | string[] | undefined>) =>
  headers['x-event-id'] as string | undefined;

async function storeFor(mode: ServerMode): Promise<Store<never> | undefined> {
  // BENCH_MAX_RECEIPTS: the store's bound, so that a short run reaches a steady size (callgrind).
  if (mode === 'memory')
    return new InMemoryStore({ maxReceipts: Number(process.env.BENCH_MAX_RECEIPTS ?? 10_000) });
  if (mode !== 'sqlite') return undefined;
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'wi-bench-')), 'bench.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  await Schema.createTable(db);
  return new SqlStore(db) as unknown as Store<never>;
}

async function expressServer(mode: ServerMode, store: Store<never> | undefined) {
  const app = express();
  const guard =
    mode === 'peer'
      ? [peerMiddleware()]
      : store
        ? [idempotent({ store, provider: 'bench', key: (req) => keyOf(req.headers) })]
        : [];
  app.post('/hook', express.json({ verify: saveRawBody }), ...guard, (_req, res) => {
    res.json(ANSWER);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

async function fastifyServer(store: Store<never> | undefined) {
  const app = Fastify();
  await app.register(async (scope) => {
    if (store) {
      // The raw bytes for the fingerprint, as the adapter's README sets it up.
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
      await scope.register(fastifyIdempotency, {
        store,
        provider: 'bench',
        key: (req) => keyOf(req.headers),
      });
    }
    scope.post('/hook', async () => ANSWER);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

async function koaServer(store: Store<never> | undefined) {
  const app = new Koa();
  app.use(rawBodyParser());
  if (store) app.use(koaIdempotent({ store, provider: 'bench', key: (ctx) => keyOf(ctx.headers) }));
  app.use((ctx) => {
    ctx.body = ANSWER;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

async function main(): Promise<void> {
  const framework = process.argv[2] as Framework;
  const mode = process.argv[3] as ServerMode;
  const store = await storeFor(mode);
  const server =
    framework === 'express'
      ? await expressServer(mode, store)
      : framework === 'fastify'
        ? await fastifyServer(store)
        : await koaServer(store);
  process.send!({ port: server.port });
  process.on('message', (message) => {
    if (message === 'cpu')
      process.send!({ cpu: { ...process.cpuUsage(), rss: process.memoryUsage().rss } });
    if (message === 'stop') {
      server.close();
      process.exit(0);
    }
  });
}

void main();
