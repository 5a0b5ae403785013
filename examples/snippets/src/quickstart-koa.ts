/** @module The quickstart on Koa (docs/quickstart.md, step 3). */
// #region koa
import Koa from 'koa';
import Router from '@koa/router';
import { idempotent, rawBodyParser } from '@webhook-idempotency/koa';
// #endregion koa
import type { QuickstartStore } from './quickstart';

/** Step 3, Koa. */
export function koaApp(store: QuickstartStore) {
  // #region koa
  const app = new Koa();
  const router = new Router();
  router.post(
    '/webhooks/github',
    rawBodyParser(), // the exact bytes on ctx.request.rawBody, the parsed JSON on ctx.request.body
    idempotent({ store, provider: 'github', key: (ctx) => ctx.get('x-github-delivery') }),
    async (ctx) => {
      const event = ctx.request.body as { action?: string };
      // … change your data once per delivery …
      ctx.body = { received: event.action, at: new Date().toISOString() };
    },
  );
  app.use(router.routes());
  // #endregion koa
  return app;
}
