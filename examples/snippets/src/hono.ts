/**
 * @module docs/adapters/hono.md and packages/hono/README.md: one route, a signed preset behind
 * maxRequestBytes, the transaction, app-wide use. test/web-adapters.test.ts serves each with @hono/node-server.
 */
// #region minimal
import { Hono } from 'hono';
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/hono';
import { z } from 'zod';
// #endregion minimal
// #region preset
import * as providers from '@webhook-idempotency/providers';
// #endregion preset
// #region transaction
import Database from 'better-sqlite3';
import { requireTransaction } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion transaction
// #region app-wide
import type { IdempotencyVariables } from '@webhook-idempotency/hono';
// #endregion app-wide
import type { Store } from '@webhook-idempotency/core';

/** The README's app. */
export function minimalApp() {
  // #region minimal
  const app = new Hono();
  const store = new InMemoryStore(); // one process only: use SqlStore from @webhook-idempotency/sql in production
  const GithubEvent = z.object({ action: z.string().optional() });

  app.post(
    '/webhooks/github',
    idempotent({
      store,
      provider: 'github',
      key: (c) => c.req.header('x-github-delivery'),
      keyDescription: 'X-GitHub-Delivery header',
    }),
    async (c) => {
      const event = GithubEvent.safeParse(await c.req.json()); // the body is still unread
      // A non-2xx answer is not recorded: the receipt fails and nothing is replayed.
      if (!event.success) return c.json(z.treeifyError(event.error), 400);
      // … change your data once per delivery …
      return c.json({ received: event.data.action, attempts: c.get('idempotency')!.attempts });
    },
  );
  // #endregion minimal
  return app;
}

/** A preset that checks a signature over the bytes, read up to maxRequestBytes. */
export function presetApp(store: Store, secret: string) {
  const app = new Hono();
  // #region preset
  app.post(
    '/webhooks/github',
    idempotent({
      store,
      preset: providers.github({ secret }), // verifies X-Hub-Signature-256 over the exact bytes
      maxRequestBytes: 512 * 1024, // 413 past 512 KiB (default 1 MiB), before the signature is checked
    }),
    (c) => c.json({ received: c.req.header('x-github-event') }),
  );
  // #endregion preset
  return app;
}

/** Transactional completion on a SQLite file: the payment and the receipt commit together. */
export async function transactionApp(file: string): Promise<{ app: Hono; db: Database.Database }> {
  // #region transaction
  const db = new Database(file);
  db.exec(
    'CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)',
  );
  await Schema.createTable(db);
  const store = new SqlStore(db);
  const Payment = z.object({
    data: z.object({ object: z.object({ id: z.string(), amount: z.number().int() }) }),
  });

  const app = new Hono();
  app.post(
    '/webhooks/payments',
    idempotent({
      store,
      provider: 'payments',
      key: (c) => c.req.header('webhook-id'),
      transactional: true,
    }),
    async (c) => {
      // The open transaction, typed from the store: for better-sqlite3, the same Database inside
      // BEGIN IMMEDIATE.
      const tx = requireTransaction(c.get('idempotency'), store);
      const payment = Payment.safeParse(await c.req.json());
      // 400, not recorded: the transaction rolls back and the receipt fails (retried on redelivery).
      if (!payment.success) return c.json(z.treeifyError(payment.error), 400);
      const { id, amount } = payment.data.data.object;
      tx.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)').run(id, amount);
      return c.json({ received: true }); // recorded, in the same transaction, before Hono sends it
    },
  );
  // #endregion transaction
  return { app, db };
}

/** `app.use`: every POST after the middleware is guarded; one provider per path segment. */
export function appWideApp(store: Store) {
  // #region app-wide
  const app = new Hono<{ Variables: IdempotencyVariables }>();
  app.get('/health', (c) => c.text('ok')); // safe methods always pass through unguarded
  app.use(
    '/webhooks/*',
    idempotent({
      store,
      provider: (c) => c.req.path.split('/')[2] ?? '',
      key: (c) => c.req.header('webhook-id'),
    }),
  );
  app.post('/webhooks/:provider', (c) =>
    c.json({ handled: c.req.path, attempts: c.get('idempotency')?.attempts }),
  );
  // #endregion app-wide
  return app;
}
