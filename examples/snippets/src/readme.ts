/** @module The root README's one-line usage per framework, each inside a runnable app. */
import Router from '@koa/router';
import express, { type Express } from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { providers, type Store } from '@webhook-idempotency/core';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import { idempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
import { idempotent as koaIdempotent } from '@webhook-idempotency/koa';

/** Express: every route under /webhooks/github. */
export function readmeExpress(store: Store<unknown>): Express {
  const app = express();
  // #region express
  app.use(express.json({ verify: saveRawBody })); // keeps the raw bytes for signatures and fingerprints
  app.use('/webhooks/github', idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }));
  // #endregion express
  app.post('/webhooks/github', (_req, res) => void res.json({ ok: true, at: Date.now() }));
  return app;
}

/** Fastify: the Stripe preset on the routes of one encapsulated context. */
export async function readmeFastify(store: Store<unknown>, secret: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    // #region fastify
    await webhooks.register(idempotency, { store, preset: providers.stripe({ secret }) });
    // #endregion fastify
    webhooks.post('/webhooks/stripe', async () => ({ ok: true, at: Date.now() }));
  });
  return app;
}

/** Koa: one @koa/router route with the Telegram preset. */
export function readmeKoa(store: Store<unknown>, secretToken: string): Koa {
  const router = new Router();
  const handle = (ctx: Koa.Context) => {
    ctx.body = { ok: true, at: Date.now() };
  };
  // #region koa
  router.post('/webhooks/telegram', bodyParser(), koaIdempotent({ store, preset: providers.telegram({ botId: 123456789, secretToken }) }), handle);
  // #endregion koa
  const app = new Koa();
  app.use(router.routes());
  return app;
}
