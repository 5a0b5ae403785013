/**
 * @module The plain fetch Worker of docs/adapters/fetch.md: the same GitHub route as the Hono
 * Worker, with `withIdempotency` and no framework. test/workers.test.ts bundles it with wrangler
 * from the packed tarballs and runs it in workerd.
 */
// #region worker
import { env } from 'cloudflare:workers'; // the bindings, at module scope
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import type { EventMap } from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { D1Store } from '@webhook-idempotency/sql/d1';
import { recordPush } from './pushes';

// Typed with GitHub's own payloads: EventMap<typeof preset>['push'] is its push payload.
const preset = providers.github<GitHubEvents>({ secret: env.GITHUB_WEBHOOK_SECRET });

const githubWebhook = withIdempotency(
  {
    store: new D1Store(env.DB),
    preset,
    maxRequestBytes: 256 * 1024,
  },
  async (request) => {
    const delivery = request.headers.get('x-github-delivery')!; // the preset's key: present here
    const name = request.headers.get('x-github-event'); // GitHub names the event in a header
    switch (name) {
      case 'push': {
        const push: EventMap<typeof preset>['push'] = JSON.parse(await request.text());
        return recordPush(env, delivery, push);
      }
      default:
        return Response.json({ ignored: name }, { status: 202 });
    }
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
