// docs/adapters/fetch.md, "Deno": the server file as a Deno user writes it, type-checked by
// `deno check` and run by tests/runtimes/deno.test.ts with the permissions the docs give, from the
// packed tarballs (PORT, DATABASE_FILE and STRIPE_WEBHOOK_SECRET from the test).
// #region server
import { DatabaseSync } from 'node:sqlite';
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';

const db = new DatabaseSync(Deno.env.get('DATABASE_FILE') ?? 'webhooks.db', { timeout: 5_000 });
db.exec('PRAGMA journal_mode = WAL');
db.exec(
  'CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)',
);
await Schema.createTable(db); // once, before serving: a migration step in a real app

const stripeWebhook = withIdempotency(
  {
    store: new SqlStore(db),
    preset: providers.stripe({ secret: Deno.env.get('STRIPE_WEBHOOK_SECRET')! }),
    transactional: true, // the payment and the receipt commit together
  },
  async (request, idempotency) => {
    const event = await request.json();
    if (event.type === 'payment_intent.succeeded') {
      const { id, amount } = event.data.object;
      // The open transaction: the same DatabaseSync, inside BEGIN IMMEDIATE.
      idempotency!
        .transaction!.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)')
        .run(id, amount);
    }
    return Response.json({ received: true });
  },
);

Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, (request) => {
  const { pathname } = new URL(request.url);
  if (request.method === 'POST' && pathname === '/webhooks/stripe') return stripeWebhook(request);
  return new Response('Not Found', { status: 404 });
});
// #endregion server
