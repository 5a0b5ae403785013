/**
 * @module The Hono Worker of docs/adapters/hono.md: GitHub pushes on `POST /webhooks/github`,
 * guarded by the D1 store. test/workers.test.ts bundles it with wrangler from the packed tarballs
 * and runs it in workerd.
 */
// #region worker
import { env } from 'cloudflare:workers'; // the bindings, at module scope
import { Hono } from 'hono';
import { idempotent, type IdempotencyVariables } from '@webhook-idempotency/hono';
import * as providers from '@webhook-idempotency/providers';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { type Push, recordPush } from './pushes';

const app = new Hono<{ Variables: IdempotencyVariables }>();

app.post(
  '/webhooks/github',
  idempotent({
    store: new D1Store(env.DB),
    preset: providers.github({ secret: env.GITHUB_WEBHOOK_SECRET }),
    maxRequestBytes: 256 * 1024,
  }),
  async (c) => {
    const delivery = c.req.header('x-github-delivery')!; // the preset's key: present here
    return recordPush(env, delivery, await c.req.json<Push>());
  },
);

export default app;
// #endregion worker
