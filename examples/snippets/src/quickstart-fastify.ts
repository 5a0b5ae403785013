/** @module The quickstart on Fastify (docs/quickstart.md, step 3). */
// #region fastify
import Fastify from 'fastify';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
// #endregion fastify
import type { QuickstartStore } from './quickstart';

/** Step 3, Fastify. */
export async function fastifyApp(store: QuickstartStore) {
  // #region fastify
  const app = Fastify();
  await app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await webhooks.register(fastifyIdempotency, {
      store,
      provider: 'github',
      key: (request) => request.headers['x-github-delivery'] as string | undefined,
    });
    webhooks.post<{ Body: { action?: string } }>(
      '/webhooks/github',
      // Fastify checks the body against the schema before the guard: 400, nothing claimed.
      { schema: { body: { type: 'object', properties: { action: { type: 'string' } } } } },
      async (request) => {
        // … change your data once per delivery …
        return { received: request.body.action, at: new Date().toISOString() };
      },
    );
  });
  // #endregion fastify
  return app;
}
