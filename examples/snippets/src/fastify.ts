/**
 * @module docs/adapters/fastify.md and packages/fastify/README.md: the minimal app, per-route
 * config, the transaction. test/adapters.test.ts drives each with `inject` or supertest.
 */
// #region minimal
import Fastify from 'fastify';
import { InMemoryStore, requireTransaction } from '@webhook-idempotency/core';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
// #endregion minimal
// #region transaction
import knex from 'knex';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { z } from 'zod';
// #endregion transaction
import type { Store } from '@webhook-idempotency/core';
import type { FastifyInstance } from 'fastify';

/** The README's runnable example. */
export function minimalApp() {
  // #region minimal
  const app = Fastify();
  const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production

  app.register(async (webhooks) => {
    // #region parser
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    // #endregion parser
    await webhooks.register(fastifyIdempotency, {
      store,
      provider: 'github',
      key: (request) => request.headers['x-github-delivery'] as string | undefined,
      keyDescription: 'X-GitHub-Delivery header',
    });
    webhooks.post('/webhooks/github', async (request) => {
      // … change your data once per delivery (request.body is the parsed JSON) …
      return { received: true, attempts: request.idempotency!.attempts };
    });
  });
  // #endregion minimal
  return app;
}

/** Not run by the tests (they use `inject`). */
export function start(app: FastifyInstance) {
  // #region minimal
  app.listen({ port: 3000 });
  // #endregion minimal
}

/** Per route: opt out, own options, and `global: false`. */
export async function perRouteApp(store: Store) {
  const handler = async () => ({ ok: true });
  // #region per-route
  const StripeEvent = z.object({ id: z.string() });

  const app = Fastify();
  await app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await webhooks.register(fastifyIdempotency, {
      store,
      provider: 'github',
      key: (request) => request.headers['x-github-delivery'] as string | undefined,
    });

    webhooks.post('/webhooks/github', handler); // the plugin's options
    webhooks.post('/health', { config: { idempotency: false } }, handler); // opted out
    webhooks.post(
      '/webhooks/stripe',
      {
        config: {
          idempotency: {
            provider: 'stripe',
            key: (request) => StripeEvent.safeParse(request.body).data?.id, // no id: 400
          },
        }, // own key
      },
      handler,
    );
  });

  await app.register(async (optIn) => {
    optIn.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await optIn.register(fastifyIdempotency, {
      store,
      global: false,
      provider: 'shop',
      key: (request) => request.headers['webhook-id'] as string | undefined,
    });
    optIn.post('/shop/orders', { config: { idempotency: true } }, handler); // guarded
    optIn.post('/shop/ping', handler); // not guarded: global is false
  });
  // #endregion per-route
  return app;
}

/** Transactional completion over knex: the payment and the receipt commit together. */
export async function transactionApp(filename: string) {
  // #region transaction
  const db = knex({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true }); // or pg, mysql2
  await Schema.createTable(db);
  await db.schema.createTable('payments', (t) => {
    t.string('payment_intent').primary();
    t.integer('amount').notNullable();
  });
  const store = new SqlStore(db);
  const Payment = z.object({
    id: z.string(),
    data: z.object({ object: z.object({ id: z.string(), amount: z.number().int() }) }),
  });

  const app = Fastify();
  await app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await webhooks.register(fastifyIdempotency, {
      store,
      provider: 'payments',
      // A body that is not a Payment has no key: 400 naming keyDescription, nothing claimed.
      key: (request) => Payment.safeParse(request.body).data?.id,
      keyDescription: 'payment event (id, data.object.id, data.object.amount)',
      transactional: true,
    });
    webhooks.post('/webhooks/payments', async (request) => {
      const trx = requireTransaction(request.idempotency, store); // Knex.Transaction, open until the receipt is completed
      const { id, amount } = Payment.parse(request.body).data.object; // typed; `key` checked it
      await trx('payments').insert({ payment_intent: id, amount });
      return { received: true };
    });
  });
  // #endregion transaction
  return { app, db };
}
