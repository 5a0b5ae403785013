/**
 * @module A Stripe webhook endpoint on Express whose data layer is Prisma 7 on PostgreSQL
 * (`@prisma/adapter-pg`). The Stripe preset checks `Stripe-Signature` on the raw bytes before any
 * claim and keys receipts on `event.id`; in transactional mode the route books the payment and
 * marks the order paid through Prisma's interactive-transaction client, `tx`, which commits
 * together with the receipt: a redelivered event, or a crash half-way, never books twice.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import express, { type ErrorRequestHandler } from 'express';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotencyErrors, idempotent, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { SqlStore } from '@webhook-idempotency/sql';
import { fromPrisma } from '@webhook-idempotency/sql/prisma';
import { PrismaClient } from '../prisma/generated/client';

/** Options of {@link createStripeApp}. */
export interface StripeAppOptions {
  /** A PostgreSQL URL whose database has the tables of prisma/migrations. */
  databaseUrl: string;
  /** The endpoint's signing secret (`whsec_…`) from the Stripe dashboard. */
  signingSecret: string;
}

/** The app, the Prisma client it runs on, and how to close it. */
export interface StripeApp {
  app: express.Express;
  prisma: PrismaClient;
  close(): Promise<void>;
}

/** Builds the app with `POST /webhooks/stripe`. */
export function createStripeApp(options: StripeAppOptions): StripeApp {
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: options.databaseUrl }),
  });
  // The store's statements run through this client; in a handler, through its `tx`.
  const connection = fromPrisma(prisma);
  const store = new SqlStore(connection);
  // Each Stripe event name its own handler, typed by Stripe's own events (`stripe` installed,
  // types only): the preset checks the signature, the route set names the event and runs its
  // route under the receipt. Every other event is answered 200 and neither stored nor run.
  const stripe = routes(providers.stripe<StripeEvents>({ secret: options.signingSecret }), {
    'payment_intent.succeeded': async (event, context) => {
      const intent = event.data.object; // Stripe.PaymentIntent
      const orderId = intent.metadata.order_id;
      // Not one of the shop's payments: a definite answer, stored and replayed as it is.
      if (!orderId) return { received: true, booked: false };
      // Prisma's interactive-transaction client, typed from the store: no cast.
      const tx = requireTransaction(context, store);
      // Throws (P2025) when no open order has that id: the transaction rolls back, the caller
      // gets a 500, and Stripe's retry runs the handler afresh.
      await tx.order.update({ where: { id: orderId, status: 'open' }, data: { status: 'paid' } });
      await tx.payment.create({
        data: {
          paymentIntent: intent.id,
          orderId,
          amount: intent.amount_received,
          currency: intent.currency,
          eventId: event.id,
        },
      });
      return { received: true, booked: true }; // the answer: 200 JSON, stored, replayed
    },
  });

  const app = express();
  app.post(
    '/webhooks/stripe',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset: stripe, transactional: true }),
  );
  app.use(idempotencyErrors());
  const failed: ErrorRequestHandler = (error, _req, res, _next) => {
    console.error(error);
    // Not stored: Stripe retries a 500, and the retry runs the handler again.
    res.status(500).json({ error: 'internal error' });
  };
  app.use(failed);
  return { app, prisma, close: () => prisma.$disconnect() };
}
