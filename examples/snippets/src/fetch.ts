/**
 * @module docs/adapters/fetch.md and packages/fetch/README.md: a signed preset with a body limit,
 * the transaction (the route module itself: fetch-route.ts). test/web-adapters.test.ts calls each with Requests.
 */
import { withIdempotency } from '@webhook-idempotency/fetch';
// #region preset
import * as providers from '@webhook-idempotency/providers';
// #endregion preset
// #region transaction
import Database from 'better-sqlite3';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { z } from 'zod';
// #endregion transaction
import type { Store } from '@webhook-idempotency/core';

/** A preset that checks a signature over the bytes, with a smaller body limit. */
export function presetRoute(store: Store, secret: string) {
  // #region preset
  const POST = withIdempotency(
    {
      store,
      preset: providers.github({ secret }), // verifies X-Hub-Signature-256 over the exact bytes
      maxRequestBytes: 512 * 1024, // 413 past 512 KiB, before the guard runs
    },
    async (request) => Response.json({ received: request.headers.get('x-github-event') }),
  );
  // #endregion preset
  return POST;
}

/** Transactional completion on a SQLite file: the payment and the receipt commit together. */
export async function transactionRoute(
  file: string,
): Promise<{ POST: (request: Request) => Promise<Response>; db: Database.Database }> {
  // #region transaction
  const db = new Database(file);
  db.exec(
    'CREATE TABLE IF NOT EXISTS payments (payment_intent TEXT PRIMARY KEY, amount INTEGER NOT NULL)',
  );
  await Schema.createTable(db); // once, before serving: a migration step in a real app
  const Payment = z.object({
    data: z.object({ object: z.object({ id: z.string(), amount: z.number().int() }) }),
  });

  const POST = withIdempotency(
    {
      store: new SqlStore(db),
      provider: 'payments',
      key: (request) => request.headers.get('webhook-id'),
      transactional: true,
    },
    async (request, idempotency) => {
      // The open transaction, typed from `store` (no cast): for better-sqlite3, the same
      // Database inside BEGIN IMMEDIATE.
      const tx = idempotency!.transaction!;
      const payment = Payment.safeParse(await request.json());
      // 400, not recorded: the transaction rolls back and the receipt fails (retried on redelivery).
      if (!payment.success) return Response.json(z.treeifyError(payment.error), { status: 400 });
      const { id, amount } = payment.data.data.object;
      tx.prepare('INSERT INTO payments (payment_intent, amount) VALUES (?, ?)').run(id, amount);
      return Response.json({ received: true }); // recorded, in the same transaction, before it is returned
    },
  );
  // #endregion transaction
  return { POST, db };
}
