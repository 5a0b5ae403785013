/**
 * @module docs/adapters/fetch.md and packages/fetch/README.md: the minimal route module, as
 * `app/api/webhooks/github/route.ts` of a Next.js app. test/web-adapters.test.ts calls its POST.
 */
// #region minimal
import { InMemoryStore } from '@webhook-idempotency/core';
import { withIdempotency } from '@webhook-idempotency/fetch';

const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production

export const POST = withIdempotency(
  {
    store,
    provider: 'github',
    key: (request) => request.headers.get('x-github-delivery'),
    keyDescription: 'X-GitHub-Delivery header',
  },
  async (request, idempotency) => {
    const event = (await request.json()) as { action?: string }; // the body is still unread
    // … change your data once per delivery …
    return Response.json({ received: event.action, attempts: idempotency!.attempts });
  },
);
// #endregion minimal
