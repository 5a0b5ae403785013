/** @module The quickstart on Koa (docs/quickstart.md, step 3). */
// #region koa
import Koa from 'koa';
import Router from '@koa/router';
import { idempotent, rawBodyParser } from '@webhook-idempotency/koa';
import { z } from 'zod';
// #endregion koa
import type { QuickstartStore } from './quickstart';

/** Step 3, Koa. */
export function koaApp(store: QuickstartStore) {
  // #region koa
  const GithubEvent = z.object({ action: z.string().optional() });
  const app = new Koa();
  const router = new Router();
  router.post(
    '/webhooks/github',
    rawBodyParser(), // the exact bytes on ctx.request.rawBody, the parsed JSON on ctx.request.body
    async (ctx, next) => {
      const checked = GithubEvent.safeParse(ctx.request.body); // before the guard: 400, nothing claimed
      if (!checked.success) ctx.throw(400, z.prettifyError(checked.error));
      await next();
    },
    idempotent({ store, provider: 'github', key: (ctx) => ctx.get('x-github-delivery') }),
    async (ctx) => {
      const event = GithubEvent.parse(ctx.request.body); // typed; checked above
      // … change your data once per delivery …
      ctx.body = { received: event.action, at: new Date().toISOString() };
    },
  );
  app.use(router.routes());
  // #endregion koa
  return app;
}
