/** @module The root README's Fastify usage, inside a runnable app. */
import type { FastifyInstance } from 'fastify';
import type { Store } from '@webhook-idempotency/core';
// #region fastify
import Fastify from 'fastify';
import * as providers from '@webhook-idempotency/providers';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
// #endregion fastify

/** Fastify: the Stripe preset on the routes of one encapsulated context. */
export async function readmeFastify(
  store: Store<unknown>,
  secret: string,
): Promise<FastifyInstance> {
  const handler = async () => ({ ok: true, at: Date.now() });
  // #region fastify
  const app = Fastify();
  await app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser); // this context only
    await webhooks.register(fastifyIdempotency, { store, preset: providers.stripe({ secret }) });
    webhooks.post('/webhooks/stripe', handler);
  });
  // #endregion fastify
  return app;
}
