/**
 * The endpoints the memory test floods, one factory per adapter: each serves a guarded route
 * (`/guard`) and an inbox route (`/inbox`), both behind the Stripe preset, on real node:http
 * servers with each framework's default body limit. Loaded by memory-host.ts in a child process.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { serve } from '@hono/node-server';
import { InMemoryStore } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import * as expressAdapter from '@webhook-idempotency/express';
import * as fastifyAdapter from '@webhook-idempotency/fastify';
import * as fetchAdapter from '@webhook-idempotency/fetch';
import * as honoAdapter from '@webhook-idempotency/hono';
import * as koaAdapter from '@webhook-idempotency/koa';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { fetchServer } from '@webhook-idempotency/adapter-conformance/apps/fetch';

/** One flooded endpoint: where it listens. */
export interface Endpoint {
  readonly name: string;
  readonly port: number;
  readonly path: string;
  /**
   * The body parser in front reads a refused body to its end, discarding it, before it answers
   * (Express's body-parser does): memory stays bounded, but the answer comes after the upload.
   */
  readonly drainsBody?: boolean;
  /**
   * The server ends the connection after its 413 while the client is still writing (Fastify, and
   * Koa's rawBodyParser past its discard bound):
   * the client's kernel may then drop the answer on the reset, so a reset counts as refused.
   */
  readonly mayReset?: boolean;
}

/** What a factory starts: its endpoints and how to stop them. */
export interface MemoryApps {
  readonly endpoints: readonly Endpoint[];
  close(): Promise<void>;
}

/** The preset every endpoint verifies with: an unsigned request is 401 once its body is read. */
export const preset = () => providers.stripe({ secret: 'whsec_memory' });
/** An inbox the endpoints never reach (every flooded request is refused first). */
export const deliveries = () => ({ enqueue: async () => true }) as never;

/** Listens on a free loopback port; resolves with the port. */
export async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Closes `server`, dropping kept-alive and half-read connections. */
export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

async function single(
  name: string,
  server: Server,
  paths: string[],
  how: Pick<Endpoint, 'drainsBody' | 'mayReset'> = {},
): Promise<MemoryApps> {
  const port = await listen(server);
  return {
    endpoints: paths.map((path) => ({ name: `${name} ${path}`, port, path, ...how })),
    close: () => stop(server),
  };
}

/** Express 5: `express.raw()` (its default limit, 100 KB) before `idempotent()` and `inbox()`. */
export function expressApps(): Promise<MemoryApps> {
  const app = express();
  const raw = express.raw({ type: '*/*' });
  const guard = expressAdapter.idempotent({ store: new InMemoryStore(), preset: preset() });
  app.post('/guard', raw, guard, (_req, res) => {
    res.json({ ok: true });
  });
  app.post('/inbox', raw, expressAdapter.inbox({ inbox: deliveries(), preset: preset() }));
  return single('express', createServer(app), ['/guard', '/inbox'], { drainsBody: true });
}

/** Fastify 5: `rawBodyJsonParser` under Fastify's default `bodyLimit` (1 MiB), the plugin and `inbox()`. */
export async function fastifyApps(): Promise<MemoryApps> {
  const app = Fastify();
  await app.register(async (hooks) => {
    hooks.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer' },
      fastifyAdapter.rawBodyJsonParser,
    );
    await hooks.register(fastifyAdapter.fastifyIdempotency, {
      store: new InMemoryStore(),
      preset: preset(),
      global: false,
    });
    hooks.post('/guard', { config: { idempotency: true } }, async () => ({ ok: true }));
    hooks.post(
      '/inbox',
      { preHandler: fastifyAdapter.inbox({ inbox: deliveries(), preset: preset() }) },
      async () => ({ passed: true }),
    );
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    endpoints: ['/guard', '/inbox'].map((path) => ({
      name: `fastify ${path}`,
      port,
      path,
      mayReset: true,
    })),
    close: () => app.close(),
  };
}

/** Koa 3: `rawBodyParser()` (default `maxRequestBytes`, 1 MiB) before `idempotent()` and `inbox()`. */
export function koaApps(): Promise<MemoryApps> {
  const app = new Koa();
  const router = new Router();
  router.post(
    '/guard',
    koaAdapter.rawBodyParser(),
    koaAdapter.idempotent({ store: new InMemoryStore(), preset: preset() }),
    (ctx) => {
      ctx.body = { ok: true };
    },
  );
  router.post(
    '/inbox',
    koaAdapter.rawBodyParser(),
    koaAdapter.inbox({ inbox: deliveries(), preset: preset() }),
  );
  app.use(router.routes());
  // Past its discard bound (16 MiB, a 1 s pause or 10 s) rawBodyParser closes the connection.
  return single('koa', createServer(app.callback()), ['/guard', '/inbox'], { mayReset: true });
}

/** The fetch adapter behind a node:http ↔ Request/Response server, default `maxRequestBytes` (1 MiB). */
export function fetchApps(): Promise<MemoryApps> {
  const guarded = fetchAdapter.withIdempotency(
    { store: new InMemoryStore(), preset: preset() },
    () => Response.json({ ok: true }),
  );
  const endpoint = fetchAdapter.inbox({ inbox: deliveries(), preset: preset() });
  const server = fetchServer((request) =>
    new URL(request.url).pathname === '/guard' ? guarded(request) : endpoint(request),
  );
  return single('fetch', server, ['/guard', '/inbox']);
}

/** Hono 4 on @hono/node-server, default `maxRequestBytes` (1 MiB). */
export async function honoApps(): Promise<MemoryApps> {
  const app = new Hono();
  app.post(
    '/guard',
    honoAdapter.idempotent({ store: new InMemoryStore(), preset: preset() }),
    (c) => c.json({ ok: true }),
  );
  app.post('/inbox', honoAdapter.inbox({ inbox: deliveries(), preset: preset() }));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoints: ['/guard', '/inbox'].map((path) => ({ name: `hono ${path}`, port, path })),
    close: () => stop(server),
  };
}
