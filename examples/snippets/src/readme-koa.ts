/** @module The root README's Koa usage, inside a runnable app. */
import type { Store } from '@webhook-idempotency/core';
// #region koa
import Koa from 'koa';
import Router from '@koa/router';
import * as providers from '@webhook-idempotency/providers';
import { idempotent, rawBodyParser } from '@webhook-idempotency/koa';
// #endregion koa

/** Koa: one @koa/router route with the Telegram preset. */
export function readmeKoa(store: Store<unknown>, secretToken: string): Koa {
  const handle = (ctx: Koa.Context) => {
    ctx.body = { ok: true, at: Date.now() };
  };
  // #region koa
  const router = new Router();
  router.post(
    '/webhooks/telegram',
    rawBodyParser(),
    idempotent({ store, preset: providers.telegram({ botId: 123456789, secretToken }) }),
    handle,
  );
  const app = new Koa();
  app.use(router.routes());
  // #endregion koa
  return app;
}
