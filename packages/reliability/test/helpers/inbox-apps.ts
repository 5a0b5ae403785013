/**
 * @module The inbox endpoint of every adapter, set up as its docs say (docs/inbox.md), for the
 * hostile inbox table: `POST /hook` answered by `inbox(options)`, a request handed on answered 200
 * `{"passed":true}` where the framework has a next handler. One app per adapter and route.
 */
import { running, type RunningApp } from '@webhook-idempotency/adapter-conformance';
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import { type ExpressInboxOptions, inbox as expressInbox } from '@webhook-idempotency/express';
import {
  type FastifyInboxOptions,
  inbox as fastifyInbox,
  rawBodyJsonParser,
} from '@webhook-idempotency/fastify';
import { type FetchInboxOptions, inbox as fetchInbox } from '@webhook-idempotency/fetch';
import { type HonoInboxOptions, inbox as honoInbox } from '@webhook-idempotency/hono';
import { type KoaInboxOptions, inbox as koaInbox, rawBodyParser } from '@webhook-idempotency/koa';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { fetchServer } from '@webhook-idempotency/adapter-conformance/apps/fetch';
import { type AppEnv, listen } from '@webhook-idempotency/adapter-conformance/apps/hono';
import { startNestMiddleware } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

/** The adapters the inbox table runs on. */
export type InboxFamily = 'express' | 'fastify' | 'koa' | 'fetch' | 'hono' | 'nestjs';

/** One adapter's inbox endpoint. */
export interface InboxApp {
  readonly family: InboxFamily;
  /** Shown in test names. */
  readonly name: string;
  start(options: InboxOptions<never>): Promise<RunningApp>;
}

/** A request header, whatever the native request is: Node's headers, a fetch `Request`, a Hono `Context`. */
export function headerOf(native: unknown, name: string): string | undefined {
  const n = native as {
    headers?: unknown;
    req?: { raw?: Request };
  };
  if (native instanceof Request) return native.headers.get(name) ?? undefined;
  if (n.req?.raw instanceof Request) return n.req.raw.headers.get(name) ?? undefined;
  const value = (n.headers as Record<string, string | string[] | undefined> | undefined)?.[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const passed = { passed: true };

/** Nest on Express, the recipe of docs/adapters/nestjs.md: the Express inbox as module middleware, `rawBody: true`. */
function startNestInbox(options: InboxOptions<never>): Promise<RunningApp> {
  const middleware = expressInbox(options as ExpressInboxOptions);
  return startNestMiddleware(middleware as Parameters<typeof startNestMiddleware>[0], 'hook');
}

/** Every adapter's inbox endpoint. */
export const inboxApps: readonly InboxApp[] = [
  {
    family: 'express',
    name: 'express 5',
    start(options) {
      const app = express();
      app.post(
        '/hook',
        express.raw({ type: '*/*', limit: '1mb' }),
        expressInbox(options as ExpressInboxOptions),
        (_req, res) => {
          res.json(passed);
        },
      );
      app.get('/hook', (_req, res) => {
        res.json(passed);
      });
      return running(app.listen(0, '127.0.0.1'));
    },
  },
  {
    family: 'fastify',
    name: 'fastify 5',
    async start(options) {
      const app = Fastify();
      await app.register(async (hooks) => {
        hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
        hooks.route({
          method: ['GET', 'POST'],
          url: '/hook',
          preHandler: fastifyInbox(options as FastifyInboxOptions),
          handler: async () => passed,
        });
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: app.server, close: () => app.close() };
    },
  },
  {
    family: 'koa',
    name: 'koa 3',
    start(options) {
      const app = new Koa();
      app.use(rawBodyParser());
      app.use(koaInbox(options as KoaInboxOptions));
      app.use((ctx) => {
        ctx.body = passed;
      });
      return running(app.listen(0, '127.0.0.1'));
    },
  },
  {
    family: 'fetch',
    name: 'fetch (node:http ↔ Request/Response)',
    start(options) {
      const handler = fetchInbox(options as FetchInboxOptions, () => Response.json(passed));
      return running(fetchServer(handler).listen(0, '127.0.0.1'));
    },
  },
  {
    family: 'hono',
    name: 'hono 4 (@hono/node-server)',
    start(options) {
      const app = new Hono<AppEnv>();
      app.on(['GET', 'POST'], '/hook', honoInbox(options as HonoInboxOptions), (c) =>
        c.json(passed),
      );
      return listen(app);
    },
  },
  { family: 'nestjs', name: 'nestjs on express (module middleware)', start: startNestInbox },
];
