/**
 * @module `POST /api/webhooks/stripe`, a Next.js App Router route handler. The Stripe preset checks
 * `Stripe-Signature` over the raw bytes before any claim and keys receipts on `event.id`; the
 * payment is booked through the guard's transaction, so it commits together with the receipt.
 * Each redelivery of the event is answered from its receipt, and the handler runs once.
 */
import * as providers from '@webhook-idempotency/providers';
import { withIdempotency } from '@webhook-idempotency/fetch';
import { SqlStore } from '@webhook-idempotency/sql';
import type Database from 'better-sqlite3';
import { database } from '../../../../lib/db';

/** The guard needs Node's crypto and async context: the Node.js runtime, not the Edge one. */
export const runtime = 'nodejs';

interface StripeEvent {
  id: string;
  type: string;
  data: { object: { id: string; amount_received?: number; amount?: number; currency?: string } };
}

export const POST = withIdempotency(
  {
    store: new SqlStore(database()),
    preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
    transactional: true,
  },
  async (request, idempotency) => {
    const event = (await request.json()) as StripeEvent;
    // The open transaction: for better-sqlite3, the same Database inside BEGIN IMMEDIATE.
    const tx = idempotency!.transaction as Database.Database;
    if (event.type === 'payment_intent.succeeded') {
      const intent = event.data.object;
      // A second insert of the same intent would fail on the primary key: the guard makes sure
      // there is no second run for the same event.
      tx.prepare(
        'INSERT INTO payments (payment_intent, amount, currency, event_id) VALUES (?, ?, ?, ?)',
      ).run(
        intent.id,
        intent.amount_received ?? intent.amount ?? 0,
        intent.currency ?? 'usd',
        event.id,
      );
    }
    return Response.json({ received: true });
  },
);
