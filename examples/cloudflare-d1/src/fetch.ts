/**
 * @module The plain fetch Worker of docs/adapters/fetch.md: the same GitHub route as the Hono
 * Worker, with `withIdempotency` and no framework. test/workers.test.ts bundles it with wrangler
 * from the packed tarballs and runs it in workerd.
 */
// #region worker
import { env } from 'cloudflare:workers'; // the bindings, at module scope
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { type Push, recordPush } from './pushes';

const githubWebhook = withIdempotency(
  {
    store: new D1Store(env.DB),
    preset: providers.github({ secret: env.GITHUB_WEBHOOK_SECRET }),
    maxRequestBytes: 256 * 1024,
  },
  async (request) => {
    const delivery = request.headers.get('x-github-delivery')!; // the preset's key: present here
    return recordPush(env, delivery, (await request.json()) as Push);
  },
);

export default {
  fetch(request: Request): Promise<Response> | Response {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/webhooks/github') return githubWebhook(request);
    return new Response('not found', { status: 404 });
  },
};
// #endregion worker
