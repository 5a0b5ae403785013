/**
 * @module docs/adapters/express.md and packages/express/README.md: the minimal app, the raw body,
 * the transaction, per-route and app-wide use. test/adapters.test.ts drives each with supertest.
 */
// #region minimal
import express, { type Express } from 'express';
import { InMemoryStore, requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
// #endregion minimal
// #region json-verify
import { saveRawBody } from '@webhook-idempotency/express';
// #endregion json-verify
// #region transaction
import Database from 'better-sqlite3';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { z } from 'zod';
// #endregion transaction
import type { Store } from '@webhook-idempotency/core';

/** The README's runnable example. */
export function minimalApp(): Express {
  // #region minimal
  const app = express();
  const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production

  app.post(
    '/webhooks/github',
    express.raw({ type: 'application/json' }), // keeps the exact bytes: req.body is a Buffer
    idempotent({
      store,
      provider: 'github',
      key: (req) => req.get('x-github-delivery'),
      keyDescription: 'X-GitHub-Delivery header',
    }),
    (req, res) => {
      const event = JSON.parse(req.body.toString('utf8'));
      // … change your data once per delivery …
      res.json({ received: event.action ?? true, attempts: req.idempotency!.attempts });
    },
  );
  // #endregion minimal
  return app;
}

/** Not run by the tests (they drive the app without a port). */
export function start(app: Express) {
  // #region minimal
  app.listen(3000);
  // #endregion minimal
}

/** `express.json({ verify: saveRawBody })`: the body parsed as usual, the bytes on `req.rawBody`. */
export function jsonVerifyApp(store: Store): Express {
  // #region json-verify
  const app = express();
  app.use(express.json({ verify: saveRawBody })); // req.body parsed, req.rawBody the exact bytes
  app.post(
    '/webhooks/github',
    idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }),
    (req, res) => {
      res.json({ received: req.body.action });
    },
  );
  // #endregion json-verify
  return app;
}

/** Transactional completion on a SQLite file: the order and the receipt commit together. */
export async function transactionApp(
  file: string,
): Promise<{ app: Express; db: Database.Database }> {
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

  const app = express();
  app.post(
    '/webhooks/payments',
    express.json(),
    idempotent({
      store,
      provider: 'payments',
      // A body that is not a Payment has no key: 400 naming keyDescription, nothing claimed.
      key: (req) => Payment.safeParse(req.body).data?.id,
      keyDescription: 'payment event (id, data.object.id, data.object.amount)',
      transactional: true,
    }),
    (req, res) => {
      // The open transaction, typed from the store: for better-sqlite3, the same Database inside
      // BEGIN IMMEDIATE (over Prisma its transaction client, over Drizzle its `tx`).
      const tx = requireTransaction(req.idempotency, store);
      const { id, amount } = Payment.parse(req.body).data.object; // typed; `key` checked it
      tx.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)').run(id, amount);
      res.json({ received: true }); // the receipt is completed in the same transaction, before this is sent
    },
  );
  // #endregion transaction
  return { app, db };
}

/** One middleware for every provider under /webhooks/:provider, and an unguarded route. */
export function perRouteApp(store: Store): Express {
  // #region per-route
  const app = express();

  // Every route after this line, for every provider: /webhooks/stripe, /webhooks/shop-a, …
  app.use(
    '/webhooks/:provider',
    express.raw({ type: 'application/json' }),
    idempotent({
      store,
      provider: (req) => String(req.params.provider),
      key: (req) => req.get('webhook-id'),
    }),
  );
  app.post('/webhooks/:provider', (req, res) => {
    res.json({ provider: req.params.provider, bytes: req.body.length });
  });

  app.get('/health', (_req, res) => {
    res.send('ok'); // declared outside /webhooks: never guarded
  });
  // #endregion per-route
  return app;
}
