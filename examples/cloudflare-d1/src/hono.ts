/**
 * @module The Hono Worker of docs/adapters/hono.md: GitHub pushes on `POST /webhooks/github`,
 * guarded by the D1 store. test/workers.test.ts bundles it with wrangler from the packed tarballs
 * and runs it in workerd.
 */
// #region worker
import { env } from 'cloudflare:workers'; // the bindings, at module scope
import { Hono } from 'hono';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotent } from '@webhook-idempotency/hono';
import * as providers from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { recordPush } from './pushes';

// Each `X-GitHub-Event` its route, typed with GitHub's own payloads: `push` is its push payload.
// Other events are answered 200 before any claim, nothing stored or run.
const github = routes(providers.github<GitHubEvents>({ secret: env.GITHUB_WEBHOOK_SECRET }), {
  push: (push, { key }) => recordPush(env, key.externalId, push), // key: X-GitHub-Delivery
});

const app = new Hono();
app.post(
  '/webhooks/github',
  // The route set answers every request itself: no handler after it.
  idempotent({ store: new D1Store(env.DB), preset: github, maxRequestBytes: 256 * 1024 }),
);

export default app;
// #endregion worker
