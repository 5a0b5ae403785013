// docs/adapters/fetch.md, "Bun": the server file as a Bun user writes it, run by
// tests/runtimes/bun.test.ts with `bun run` from the packed tarballs (PORT, DATABASE_FILE and
// STRIPE_WEBHOOK_SECRET from the test), and type-checked by tsc with Bun's declarations
// (tsconfig.bun.json).
// #region server
// #region bun-sqlite
import { Database } from 'bun:sqlite';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion bun-sqlite
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';

// #region bun-sqlite
const db = new Database(Bun.env.DATABASE_FILE ?? 'webhooks.db');
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA busy_timeout = 5000'); // wait for another process's write lock
// #endregion bun-sqlite
db.exec(
  'CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)',
);
// #region bun-sqlite
await Schema.createTable(db); // once, before serving: a migration step in a real app
const store = new SqlStore(db); // in transactional mode, the handle is this Database inside BEGIN IMMEDIATE
// #endregion bun-sqlite

const stripeWebhook = withIdempotency(
  {
    store,
    preset: providers.stripe({ secret: Bun.env.STRIPE_WEBHOOK_SECRET! }),
    transactional: true, // the payment and the receipt commit together
  },
  async (request, idempotency) => {
    const event = await request.json();
    if (event.type === 'payment_intent.succeeded') {
      const { id, amount } = event.data.object;
      // The open transaction: the same bun:sqlite Database, inside BEGIN IMMEDIATE.
      idempotency!
        .transaction!.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)')
        .run(id, amount);
    }
    return Response.json({ received: true });
  },
);

Bun.serve({
  port: Number(Bun.env.PORT ?? 3000),
  routes: { '/webhooks/stripe': { POST: stripeWebhook } },
});
// #endregion server
