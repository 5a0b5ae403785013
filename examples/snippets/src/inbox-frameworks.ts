/** @module docs/inbox.md: the inbox endpoint on Fastify, Koa, Hono and a fetch handler (Next.js). Run by test/inbox.test.ts. */
// #region fastify
import Fastify from 'fastify';
import * as providers from '@webhook-idempotency/providers';
import { inbox as fastifyInbox, rawBodyJsonParser } from '@webhook-idempotency/fastify';
// #endregion fastify
// #region koa
import Koa from 'koa';
import { inbox as koaInbox, rawBodyParser } from '@webhook-idempotency/koa';
// #endregion koa
// #region hono
import { Hono } from 'hono';
import { inbox as honoInbox } from '@webhook-idempotency/hono';
// #endregion hono
// #region fetch
import { inbox as fetchInbox } from '@webhook-idempotency/fetch';
// #endregion fetch
import type { SqlInbox } from '@webhook-idempotency/sql';

/** The Fastify endpoint; `deliveries` is a `SqlInbox`. */
export function fastifyInboxApp(deliveries: SqlInbox): ReturnType<typeof Fastify> {
  // #region fastify
  const app = Fastify();
  app.register(async (webhooks) => {
    // The exact bytes, in this encapsulated context only.
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    webhooks.post(
      '/webhooks/stripe',
      {
        preHandler: fastifyInbox({
          inbox: deliveries,
          preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
        }),
      },
      async () => ({}), // reached only by requests the inbox does not store
    );
  });
  // #endregion fastify
  return app;
}

/** The Koa endpoint; `deliveries` is a `SqlInbox`. */
export function koaInboxApp(deliveries: SqlInbox): Koa {
  // #region koa
  const app = new Koa();
  app.use(rawBodyParser()); // the exact bytes on ctx.request.rawBody
  app.use(
    koaInbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    }),
  );
  // #endregion koa
  return app;
}

/** The Hono endpoint; `deliveries` is a `SqlInbox`. */
export function honoInboxApp(deliveries: SqlInbox): Hono {
  // #region hono
  const app = new Hono();
  app.post(
    '/webhooks/stripe',
    honoInbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
      maxRequestBytes: 1024 * 1024, // the default: larger bodies get 413 before the signature check, nothing stored
    }),
  );
  // #endregion hono
  return app;
}

/** The fetch endpoint (a Next.js route handler's `POST`); `deliveries` is a `SqlInbox`. */
export function fetchInboxHandler(deliveries: SqlInbox): (request: Request) => Promise<Response> {
  // #region fetch
  // app/api/webhooks/stripe/route.ts
  const POST = fetchInbox({
    inbox: deliveries,
    preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    maxRequestBytes: 1024 * 1024, // larger bodies get 413, nothing stored
  });
  // #endregion fetch
  return POST;
}
