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
import type { EventMap } from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { recordPush } from './pushes';

const app = new Hono<{ Variables: IdempotencyVariables }>();
// Typed with GitHub's own payloads: EventMap<typeof preset>['push'] is its push payload.
const preset = providers.github<GitHubEvents>({ secret: env.GITHUB_WEBHOOK_SECRET });

app.post(
  '/webhooks/github',
  idempotent({
    store: new D1Store(env.DB),
    preset,
    maxRequestBytes: 256 * 1024,
  }),
  async (c) => {
    const delivery = c.req.header('x-github-delivery')!; // the preset's key: present here
    const name = c.req.header('x-github-event'); // GitHub names the event in a header
    switch (name) {
      case 'push':
        return recordPush(env, delivery, await c.req.json<EventMap<typeof preset>['push']>());
      default:
        return c.json({ ignored: name }, 202);
    }
  },
);

export default app;
// #endregion worker
