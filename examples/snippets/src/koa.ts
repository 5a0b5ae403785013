/**
 * @module docs/adapters/koa.md and packages/koa/README.md: the minimal app, keeping the bytes
 * yourself, the transaction, app-wide use. test/adapters.test.ts drives each with supertest.
 */
// #region minimal
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/koa';
// #endregion minimal
// #region transaction
import Database from 'better-sqlite3';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion transaction
import type { Store } from '@webhook-idempotency/core';
import type { IdempotentOptions } from '@webhook-idempotency/koa';

/** The README's runnable example. */
export function minimalApp() {
  // #region minimal
  const app = new Koa();
  const router = new Router();
  const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production

  router.post(
    '/webhooks/github',
    bodyParser(), // parses ctx.request.body and keeps the text as ctx.request.rawBody
    idempotent({ store, provider: 'github', key: (ctx) => ctx.get('x-github-delivery'), keyDescription: 'X-GitHub-Delivery header' }),
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

/** Reading the bytes yourself instead of koa-bodyparser (any content type, exact bytes). */
export function ownBytesApp(options: IdempotentOptions): Koa {
  const router = new Router();
  // #region own-bytes
  router.post(
    '/webhooks/github',
    async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      ctx.request.body = Buffer.concat(chunks); // the exact bytes: the middleware hashes and verifies these
      await next();
    },
    idempotent(options),
    async (ctx) => {
      const event = JSON.parse((ctx.request.body as Buffer).toString('utf8'));
      ctx.body = { received: event.action };
    },
  );
  // #endregion own-bytes
  const app = new Koa();
  app.use(router.routes());
  return app;
}

/** Transactional completion on a SQLite file: the payment and the receipt commit together. */
export async function transactionApp(file: string): Promise<{ app: Koa; db: Database.Database }> {
  // #region transaction
  const db = new Database(file);
  db.exec('CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)');
  await Schema.createTable(db);

  const app = new Koa();
  const router = new Router();
  router.post(
    '/webhooks/payments',
    bodyParser(),
    idempotent({ store: new SqlStore(db), provider: 'payments', key: (ctx) => (ctx.request.body as { id?: string }).id, transactional: true }),
    async (ctx) => {
      // The open transaction: for better-sqlite3, the same Database inside BEGIN IMMEDIATE.
      const tx = ctx.state.idempotency!.transaction as Database.Database;
      const { id, amount } = (ctx.request.body as { data: { object: { id: string; amount: number } } }).data.object;
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
  app.use(bodyParser());
  app.use(async (ctx, next) => {
    if (ctx.path === '/health') ctx.body = 'ok'; // answered before the guard: never guarded
    else await next();
  });
  app.use(idempotent({ store, provider: (ctx) => ctx.path.split('/')[2] ?? '', key: (ctx) => ctx.get('webhook-id') }));
  app.use(async (ctx) => {
    ctx.body = { handled: ctx.path }; // /webhooks/stripe, /webhooks/shop-a, …
  });
  // #endregion app-wide
  return app;
}
