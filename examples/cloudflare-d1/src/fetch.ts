/**
 * @module The plain fetch Worker of docs/adapters/fetch.md: the same GitHub route as the Hono
 * Worker, with `withIdempotency` and no framework. test/workers.test.ts bundles it with wrangler
 * from the packed tarballs and runs it in workerd.
 */
// #region worker
import { env } from 'cloudflare:workers'; // the bindings, at module scope
import { routes } from '@webhook-idempotency/core/routes';
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { recordPush } from './pushes';

// Each `X-GitHub-Event` its route, typed with GitHub's own payloads: `push` is its push payload.
// Other events are answered 200 before any claim, nothing stored or run.
const github = routes(providers.github<GitHubEvents>({ secret: env.GITHUB_WEBHOOK_SECRET }), {
  push: (push, { key }) => recordPush(env, key.externalId, push), // key: X-GitHub-Delivery
});

// The route set answers every request itself; the handler is for what a preset passes through
// unguarded, which GitHub's never does.
const githubWebhook = withIdempotency(
  { store: new D1Store(env.DB), preset: github, maxRequestBytes: 256 * 1024 },
  () => new Response('not found', { status: 404 }),
);

export default {
  fetch(request: Request): Promise<Response> | Response {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/webhooks/github') return githubWebhook(request);
    return new Response('not found', { status: 404 });
  },
};
// #endregion worker
