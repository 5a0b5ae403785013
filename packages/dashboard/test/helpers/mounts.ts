/**
 * @module Every mount of the dashboard on a real HTTP server on loopback, each beside an
 * application route of its own (`GET /other`, answered `other`) that the dashboard must leave
 * alone: what the shared HTTP suite, the browser tests and the hostile-input table run on.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import type { DashboardOptions } from '../../src';
import { expressDashboard } from '../../src/mounts/express';
import { fastifyDashboard } from '../../src/mounts/fastify';
import { fetchDashboard } from '../../src/mounts/fetch';
import { honoDashboard } from '../../src/mounts/hono';
import { koaDashboard } from '../../src/mounts/koa';

/**
 * The test's `authorize`: the header `x-admin: yes`, read from whatever each framework hands it
 * (a Node-style request or context, Hono's `Context`, a fetch `Request`).
 */
export function isAdmin(native: unknown): boolean {
  const n = native as {
    headers?: unknown;
    req?: { header?: (name: string) => string | undefined };
  };
  if (n.req?.header) return n.req.header('x-admin') === 'yes';
  if (n.headers instanceof Headers) return n.headers.get('x-admin') === 'yes';
  return (n.headers as Record<string, unknown> | undefined)?.['x-admin'] === 'yes';
}

/** A dashboard being served. */
export interface Mounted {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  close(): Promise<void>;
}

/** One framework's mount. */
export interface MountEntry {
  readonly name: 'express' | 'fastify' | 'koa' | 'hono' | 'fetch';
  /** False for the fetch handler, which answers 404 to what is not the dashboard's. */
  readonly servesOtherRoutes: boolean;
  /** Serves the dashboard with `options` (`authorize` gets this framework's native request). */
  mount(options: DashboardOptions<never>): Promise<Mounted>;
}

// biome-ignore lint/suspicious/noExplicitAny: each entry hands the options to its own framework's mount.
type AnyOptions = DashboardOptions<any>;

function listening(server: Server): Promise<Mounted> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Every mount, in one list. */
export const mounts: readonly MountEntry[] = [
  {
    name: 'express',
    servesOtherRoutes: true,
    async mount(options) {
      const app = express();
      app.use(expressDashboard(options as AnyOptions));
      app.get('/other', (_req, res) => void res.send('other'));
      return listening(createServer(app));
    },
  },
  {
    name: 'fastify',
    servesOtherRoutes: true,
    async mount(options) {
      const app = Fastify();
      await app.register(fastifyDashboard, options as AnyOptions);
      app.get('/other', async () => 'other');
      await app.ready();
      return listening(app.server);
    },
  },
  {
    name: 'koa',
    servesOtherRoutes: true,
    async mount(options) {
      const app = new Koa();
      app.use(koaDashboard(options as AnyOptions));
      app.use((ctx) => {
        if (ctx.path === '/other') ctx.body = 'other';
      });
      return listening(createServer(app.callback()));
    },
  },
  {
    name: 'hono',
    servesOtherRoutes: true,
    async mount(options) {
      const app = new Hono();
      app.use(honoDashboard(options as AnyOptions));
      app.get('/other', (c) => c.text('other'));
      return listening(createAdaptorServer({ fetch: app.fetch }) as Server);
    },
  },
  {
    name: 'fetch',
    servesOtherRoutes: false,
    async mount(options) {
      const handler = fetchDashboard(options as AnyOptions);
      return listening(createAdaptorServer({ fetch: handler }) as Server);
    },
  },
];
