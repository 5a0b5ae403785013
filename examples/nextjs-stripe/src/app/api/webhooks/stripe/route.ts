/**
 * @module `POST /api/webhooks/stripe`, a Next.js App Router route handler. The Stripe preset checks
 * `Stripe-Signature` over the raw bytes before any claim and keys receipts on `event.id`; the
 * `payment_intent.succeeded` route books the payment through the guard's transaction, so it
 * commits together with the receipt. Each redelivery of the event is answered from its receipt,
 * and the route runs once; other events are answered 200 with nothing stored.
 */
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { SqlStore } from '@webhook-idempotency/sql';
import { database } from '../../../../lib/db';

// #region runtime
/** SqlStore on better-sqlite3 (or pg, mysql2) needs Node's APIs: the Node.js runtime, not the Edge one. */
export const runtime = 'nodejs';
// #endregion runtime

/** Next's second argument to a route handler; this route has no dynamic segments. */
interface RouteContext {
  params: Promise<Record<string, never>>;
}

// #region lazy
/**
 * The guarded handler, built on the first request. `next build` loads every route module to read
 * its segment config (`runtime` above): built at module scope, the guard would open the database
 * on the build machine and refuse the build when STRIPE_WEBHOOK_SECRET is only set at run time.
 */
let guarded: ((request: Request, context: RouteContext) => Promise<Response>) | undefined;

export function POST(request: Request, context: RouteContext): Promise<Response> {
  guarded ??= stripeWebhook();
  return guarded(request, context);
}
// #endregion lazy

function stripeWebhook() {
  const store = new SqlStore(database());
  // Each Stripe event name its own handler, typed by Stripe's own events (`stripe` installed,
  // types only); every other event is answered 200 before any claim, nothing stored or run.
  const stripe = routes(
    providers.stripe<StripeEvents>({ secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
    {
      'payment_intent.succeeded': (event, context) => {
        const intent = event.data.object; // Stripe.PaymentIntent
        // The open transaction, typed from the store: for better-sqlite3, the same Database
        // inside BEGIN IMMEDIATE.
        const tx = requireTransaction(context, store);
        // A second insert of the same intent would fail on the primary key: the guard makes sure
        // there is no second run for the same event.
        tx.prepare(
          'INSERT INTO payments (payment_intent, amount, currency, event_id) VALUES (?, ?, ?, ?)',
        ).run(intent.id, intent.amount_received, intent.currency, event.id);
        return { received: true }; // the answer: 200 JSON, stored, replayed
      },
    },
  );
  // The route set answers every request itself; the handler is for what a preset passes through
  // unguarded, which Stripe's never does.
  return withIdempotency({ store, preset: stripe, transactional: true }, () =>
    Response.json({ error: 'not a Stripe event' }, { status: 404 }),
  );
}
