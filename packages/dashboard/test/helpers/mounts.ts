/**
 * @module Every mount of the dashboard on a real HTTP server on loopback, each beside an
 * application route of its own (`GET /other`, answered `other`) that the dashboard must leave
 * alone: what the shared HTTP suite, the browser tests and the hostile-input table run on.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import express4 from 'express4';
import Fastify, { type FastifyInstance } from 'fastify';
import fastify4 from 'fastify4';
import { Hono } from 'hono';
import Koa from 'koa';
import Koa2 from 'koa2';
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
  /** The framework and major it runs on (`express 5`). */
  readonly label: string;
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

const expressEntry = (label: string, make: () => ReturnType<typeof express>): MountEntry => ({
  name: 'express',
  label,
  servesOtherRoutes: true,
  async mount(options) {
    const app = make();
    app.use(expressDashboard(options as AnyOptions));
    app.get('/other', (_req, res) => void res.send('other'));
    return listening(createServer(app));
  },
});

const fastifyEntry = (label: string, make: () => FastifyInstance): MountEntry => ({
  name: 'fastify',
  label,
  servesOtherRoutes: true,
  async mount(options) {
    const app = make();
    await app.register(fastifyDashboard, options as AnyOptions);
    app.get('/other', async () => 'other');
    await app.ready();
    return listening(app.server);
  },
});

const koaEntry = (label: string, make: () => Koa): MountEntry => ({
  name: 'koa',
  label,
  servesOtherRoutes: true,
  async mount(options) {
    const app = make();
    app.use(koaDashboard(options as AnyOptions));
    app.use((ctx) => {
      if (ctx.path === '/other') ctx.body = 'other';
    });
    return listening(createServer(app.callback()));
  },
});

/** Every mount on the latest major of its framework, in one list. */
export const mounts: readonly MountEntry[] = [
  expressEntry('express 5', () => express()),
  fastifyEntry('fastify 5', () => Fastify()),
  koaEntry('koa 3', () => new Koa()),
  {
    name: 'hono',
    label: 'hono 4',
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
    label: 'fetch',
    servesOtherRoutes: false,
    async mount(options) {
      const handler = fetchDashboard(options as AnyOptions);
      return listening(createAdaptorServer({ fetch: handler }) as Server);
    },
  },
];

/** The older majors the peer ranges name: Express 4, Fastify 4, Koa 2. */
export const olderMajors: readonly MountEntry[] = [
  expressEntry('express 4', () => express4() as unknown as ReturnType<typeof express>),
  fastifyEntry('fastify 4', () => fastify4() as unknown as FastifyInstance),
  koaEntry('koa 2', () => new Koa2() as unknown as Koa),
];

/** A form parser of the application's own, as koa-bodyparser is: the fields on `ctx.request.body`. */
async function koaFormParser(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  if (ctx.is('application/x-www-form-urlencoded')) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    (ctx.request as { body?: unknown }).body = Object.fromEntries(
      new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
    );
  }
  await next();
}

/**
 * The Node mounts behind body parsers the application registered before the dashboard: a JSON
 * parser that sets `req.body` on a form it does not read (Express 4's), a form parser that reads
 * it (the dashboard takes the parsed fields), and a Fastify form parser at the root (the
 * dashboard's context brings its own).
 */
export const behindParsers: readonly MountEntry[] = [
  expressEntry('express 5 after express.json()', () => {
    const app = express();
    app.use(express.json());
    return app;
  }),
  expressEntry('express 4 after express.json()', () => {
    const app = express4();
    app.use(express4.json());
    return app as unknown as ReturnType<typeof express>;
  }),
  expressEntry('express 5 after express.urlencoded()', () => {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    return app;
  }),
  fastifyEntry('fastify 5 with a form parser of its own', () => {
    const app = Fastify();
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    return app;
  }),
  koaEntry('koa 3 after a form parser', () => {
    const app = new Koa();
    app.use(koaFormParser);
    return app;
  }),
];
