/**
 * @module docs/adapters/fetch.md and packages/fetch/README.md: the minimal route module, as
 * `app/api/webhooks/github/route.ts` of a Next.js app. test/web-adapters.test.ts calls its POST.
 */
// #region minimal
import { InMemoryStore } from '@webhook-idempotency/core';
import { withIdempotency } from '@webhook-idempotency/fetch';
import { z } from 'zod';

const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production
const GithubEvent = z.object({ action: z.string().optional() });

export const POST = withIdempotency(
  {
    store,
    provider: 'github',
    key: (request) => request.headers.get('x-github-delivery'),
    keyDescription: 'X-GitHub-Delivery header',
  },
  async (request, idempotency) => {
    const event = GithubEvent.safeParse(await request.json()); // the body is still unread
    // A non-2xx answer is not recorded: the receipt fails and nothing is replayed.
    if (!event.success) return Response.json(z.treeifyError(event.error), { status: 400 });
    // … change your data once per delivery …
    return Response.json({ received: event.data.action, attempts: idempotency!.attempts });
  },
);
// #endregion minimal
