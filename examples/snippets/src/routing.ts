/**
 * @module docs/routing.md: a Stripe route set on Express, the same set in inbox mode, a route
 * that checks its payload with a zod schema, and a shutdown that keeps the last ignored-event
 * counts. test/routing.test.ts runs them.
 */
import type { Server } from 'node:http';
import type { Store } from '@webhook-idempotency/core';
import type { InboxStore } from '@webhook-idempotency/core/inbox';
// #region routes
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotent } from '@webhook-idempotency/express';
// #endregion routes
// #region inbox
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { inbox } from '@webhook-idempotency/express';
// #endregion inbox
// #region validated
import { validated } from '@webhook-idempotency/core/routes';
import { z } from 'zod';
// #endregion validated
// #region shutdown
import { flushIgnored } from '@webhook-idempotency/core/routes';
// #endregion shutdown
import express, { type Express } from 'express';

/** What the routes book (the test reads it). */
export const booked: string[] = [];
const bookPayment = (id: string, cents: number) => booked.push(`payment ${id} ${cents}`);
const syncInvoice = (id: string | undefined) => booked.push(`invoice ${id}`);

export function stripeRoutes() {
  // #region routes
  const stripe = routes(
    providers.stripe<StripeEvents>({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    {
      // event: Stripe.PaymentIntentSucceededEvent
      'payment_intent.succeeded': (event) =>
        bookPayment(event.data.object.id, event.data.object.amount),
      // every invoice.* event: event.data.object is a Stripe.Invoice
      'invoice.*': (event) => syncInvoice(event.data.object.id),
    },
    { unrouted: 'ignore' }, // the default: other events get 200, nothing stored or run
  );
  // #endregion routes
  return stripe;
}

export function syncRoute(app: Express, store: Store): void {
  const stripe = stripeRoutes();
  // #region routes
  app.post('/webhooks/stripe', express.raw({ type: '*/*' }), idempotent({ store, preset: stripe }));
  // #endregion routes
}

export function inboxRoute(app: Express, deliveries: InboxStore, store: Store) {
  const stripe = stripeRoutes();
  // #region inbox
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }),
    inbox({ inbox: deliveries, preset: stripe }),
  );
  const worker = createInboxWorker({ inbox: deliveries, store, handlers: { stripe } });
  // #endregion inbox
  return worker;
}

export function validatedRoute(app: Express, store: Store): void {
  // #region validated
  const Refund = z.object({
    id: z.string(),
    data: z.object({ object: z.object({ amount: z.number().int().positive() }) }),
  });
  const stripe = routes(providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }), {
    // refund: z.infer<typeof Refund>; a payload it refuses is answered 422, nothing stored
    'charge.refunded': validated(Refund, (refund) =>
      bookPayment(refund.id, -refund.data.object.amount),
    ),
  });
  app.post('/webhooks/stripe', express.raw({ type: '*/*' }), idempotent({ store, preset: stripe }));
  // #endregion validated
}

/** Stops `server`, then writes the ignored events its route sets counted and had not written yet. */
export async function shutdown(server: Server, store: Store): Promise<void> {
  // #region shutdown
  // On SIGTERM: stop taking requests, then write the last seconds' ignored-event counts.
  await new Promise((closed) => server.close(closed));
  await flushIgnored(store);
  // #endregion shutdown
}
