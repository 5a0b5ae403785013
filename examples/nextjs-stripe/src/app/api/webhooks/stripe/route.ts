/**
 * @module `POST /api/webhooks/stripe`, a Next.js App Router route handler. The Stripe preset checks
 * `Stripe-Signature` over the raw bytes before any claim and keys receipts on `event.id`; the
 * payment is booked through the guard's transaction, so it commits together with the receipt.
 * Each redelivery of the event is answered from its receipt, and the handler runs once.
 */
import { withIdempotency } from '@webhook-idempotency/fetch';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
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
  // Typed with Stripe's own events (`stripe` installed, types only): the body is a `Stripe.Event`.
  const preset = providers.stripe<StripeEvents>({
    secret: process.env.STRIPE_WEBHOOK_SECRET ?? '',
  });
  return withIdempotency(
    { store: new SqlStore(database()), preset, transactional: true },
    async (request, idempotency) => {
      const event: EventOf<typeof preset> = JSON.parse(await request.text()); // verified bytes
      // The open transaction, typed from the store: for better-sqlite3, the same Database inside
      // BEGIN IMMEDIATE.
      const tx = idempotency!.transaction!;
      switch (event.type) {
        case 'payment_intent.succeeded': {
          const intent = event.data.object; // Stripe.PaymentIntent
          // A second insert of the same intent would fail on the primary key: the guard makes
          // sure there is no second run for the same event.
          tx.prepare(
            'INSERT INTO payments (payment_intent, amount, currency, event_id) VALUES (?, ?, ?, ?)',
          ).run(intent.id, intent.amount_received, intent.currency, event.id);
          break;
        }
        default:
          break; // the events this route does not book: acknowledged, nothing to do
      }
      return Response.json({ received: true });
    },
  );
}
