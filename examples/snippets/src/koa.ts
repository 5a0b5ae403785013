/**
 * @module docs/adapters/koa.md and packages/koa/README.md: the minimal app, rawBodyParser with a
 * signed preset, the transaction, app-wide use. test/adapters.test.ts drives each with supertest.
 */
// #region minimal
import Koa from 'koa';
import Router from '@koa/router';
import { InMemoryStore, requireTransaction } from '@webhook-idempotency/core';
import { idempotent, rawBodyParser } from '@webhook-idempotency/koa';
// #endregion minimal
// #region raw-body
import * as providers from '@webhook-idempotency/providers';
import { routes, validated } from '@webhook-idempotency/core/routes';
import { z } from 'zod';
// #endregion raw-body
// #region transaction
import Database from 'better-sqlite3';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion transaction
import type { Store } from '@webhook-idempotency/core';

/** The README's runnable example. */
export function minimalApp() {
  // #region minimal
  const app = new Koa();
  const router = new Router();
  const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production

  router.post(
    '/webhooks/github',
    rawBodyParser(), // the exact bytes on ctx.request.rawBody, the parsed JSON on ctx.request.body
    idempotent({
      store,
      provider: 'github',
      key: (ctx) => ctx.get('x-github-delivery'),
      keyDescription: 'X-GitHub-Delivery header',
    }),
    async (ctx) => {
      // … change your data once per delivery …
      ctx.body = { received: true, attempts: ctx.state.idempotency!.attempts };
    },
  );

  app.use(router.routes());
  // #endregion minimal
  return app;
}

/** Not run by the tests (they drive the app without a port). */
export function start(app: Koa) {
  // #region minimal
  app.listen(3000);
  // #endregion minimal
}

/** rawBodyParser with a limit, in front of a preset that checks a signature over the bytes. */
export function rawBodyApp(store: Store, secret: string): Koa {
  const router = new Router();
  // #region raw-body
  // Verified, then checked against the schema, then claimed: a body it refuses gets 422, nothing stored.
  const github = routes(providers.github({ secret }), {
    '*': validated(z.object({ action: z.string().optional() }), (event) => ({
      received: event.action, // the answer, 200 as JSON
    })),
  });
  router.post(
    '/webhooks/github',
    rawBodyParser({ maxRequestBytes: 512 * 1024 }), // 413 past 512 KiB, 400 for malformed JSON
    idempotent({ store, preset: github }), // verifies X-Hub-Signature-256 over ctx.request.rawBody
  );
  // #endregion raw-body
  const app = new Koa();
  app.use(router.routes());
  return app;
}

/** Transactional completion on a SQLite file: the payment and the receipt commit together. */
export async function transactionApp(file: string): Promise<{ app: Koa; db: Database.Database }> {
  // #region transaction
  const db = new Database(file);
  db.exec(
    'CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)',
  );
  await Schema.createTable(db);
  const store = new SqlStore(db);
  const Payment = z.object({
    id: z.string(),
    data: z.object({ object: z.object({ id: z.string(), amount: z.number().int() }) }),
  });

  const app = new Koa();
  const router = new Router();
  router.post(
    '/webhooks/payments',
    rawBodyParser(),
    idempotent({
      store,
      provider: 'payments',
      // A body that is not a Payment has no key: 400 naming keyDescription, nothing claimed.
      key: (ctx) => Payment.safeParse(ctx.request.body).data?.id,
      keyDescription: 'payment event (id, data.object.id, data.object.amount)',
      transactional: true,
    }),
    async (ctx) => {
      // The open transaction, typed from the store: for better-sqlite3, the same Database inside
      // BEGIN IMMEDIATE.
      const tx = requireTransaction(ctx.state.idempotency, store);
      const { id, amount } = Payment.parse(ctx.request.body).data.object; // typed; `key` checked it
      tx.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)').run(id, amount);
      ctx.body = { received: true }; // recorded, in the same transaction, before Koa sends it
    },
  );
  app.use(router.routes());
  // #endregion transaction
  return { app, db };
}

/** `app.use`: everything after the middleware is guarded; one provider per path segment. */
export function appWideApp(store: Store) {
  // #region app-wide
  const app = new Koa();
  app.use(rawBodyParser());
  app.use(async (ctx, next) => {
    if (ctx.path === '/health')
      ctx.body = 'ok'; // answered before the guard: never guarded
    else await next();
  });
  app.use(
    idempotent({
      store,
      provider: (ctx) => ctx.path.split('/')[2] ?? '',
      key: (ctx) => ctx.get('webhook-id'),
    }),
  );
  app.use(async (ctx) => {
    ctx.body = { handled: ctx.path }; // /webhooks/stripe, /webhooks/shop-a, …
  });
  // #endregion app-wide
  return app;
}
