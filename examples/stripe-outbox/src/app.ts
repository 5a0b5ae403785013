/**
 * @module Stripe payments on Express and SQLite whose side effects go through the transactional
 * outbox: `POST /webhooks/stripe` books `payment_intent.succeeded` in the guard's transaction and,
 * in that same transaction, records a receipt email and a call to the warehouse's API; a
 * dispatcher sends them once the booking has committed, each with its effect key on every
 * attempt, and sends nothing of a run that rolled back.
 */
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { requireTransaction } from '@webhook-idempotency/core';
import {
  createOutboxDispatcher,
  type EmailMessage,
  emailSender,
  type HttpMessage,
  httpSender,
  type MailTransport,
  Outbox,
  type OutboxDispatcher,
  type OutboxEvent,
} from '@webhook-idempotency/core/outbox';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotencyErrors, idempotent, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { OutboxSchema, Schema, SqlOutbox, SqlStore } from '@webhook-idempotency/sql';

/** Options of {@link createShop}. */
export interface ShopOptions {
  /** Path of the SQLite database file (created if missing). */
  readonly file: string;
  /** The endpoint's signing secret (`whsec_…`) from the Stripe dashboard. */
  readonly signingSecret: string;
  /** The warehouse API's base URL: a paid order is shipped by `POST {warehouseUrl}/shipments`. */
  readonly warehouseUrl: string;
  /** Called after the booking and the two messages, before the commit: lets the test fail a run. */
  readonly beforeCommit?: (eventId: string) => void;
  /** Where a failed run's error goes (its answer is a plain 500). Defaults to `console.error`. */
  readonly logError?: (error: unknown) => void;
}

/** The app and what the dispatcher, the tests and the server need. */
export interface Shop {
  readonly app: Express;
  /** The app's own connection: reads of committed data. */
  readonly db: Database.Database;
  /** The outbox table's store, on the receipts store's connection: what the dispatcher leases. */
  readonly messages: SqlOutbox<Database.Database>;
  close(): void;
}

/** The shop's own table (idempotent). */
function createPaymentsTable(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS payments (
      payment_intent TEXT PRIMARY KEY,
      order_id TEXT NOT NULL,
      amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      event_id TEXT NOT NULL
    )
  `);
}

/**
 * Builds the app over a SQLite file: the receipts, the outbox and the payments in one database.
 *
 * Two connections to the file: the store's, which holds the guard's transaction while a handler
 * runs and on which the outbox inserts its messages (a message must commit with the booking, so it
 * is written in that transaction, on that connection), and the app's, for reads. WAL lets them
 * work side by side.
 */
export async function createShop(options: ShopOptions): Promise<Shop> {
  const storeDb = new Database(options.file);
  const db = new Database(options.file);
  for (const connection of [storeDb, db]) {
    connection.pragma('journal_mode = WAL');
    connection.pragma('busy_timeout = 5000');
  }
  createPaymentsTable(db);
  await Schema.createTable(storeDb); // the receipts (webhook_receipts)
  await OutboxSchema.createTable(storeDb); // the messages (webhook_outbox)

  const store = new SqlStore(storeDb);
  const messages = new SqlOutbox(storeDb, { receipts: store });
  const outbox = new Outbox({ store: messages });

  const stripe = routes(providers.stripe<StripeEvents>({ secret: options.signingSecret }), {
    'payment_intent.succeeded': async (event, context) => {
      const intent = event.data.object; // Stripe.PaymentIntent
      const orderId = intent.metadata.order_id;
      // Not one of the shop's payments: a definite answer, stored and replayed as it is.
      if (!orderId) return { booked: false };
      const tx = requireTransaction(context, store); // this Database, inside BEGIN IMMEDIATE
      tx.prepare(
        'INSERT INTO payments (payment_intent, order_id, amount, currency, event_id) VALUES (?, ?, ?, ?, ?)',
      ).run(intent.id, orderId, intent.amount_received, intent.currency, event.id);
      // Both messages are rows inserted in this transaction: sent after it commits, never if it
      // rolls back. Their keys are this run's effectKey('receipt-email') and
      // effectKey('ship-order'), the same on every retry of the event.
      if (intent.receipt_email)
        await outbox.add<EmailMessage>(context, {
          name: 'receipt-email',
          sender: 'email',
          payload: {
            to: intent.receipt_email,
            subject: `Receipt for order ${orderId}`,
            text: `We received ${intent.amount_received / 100} ${intent.currency.toUpperCase()}. Thank you!`,
          },
        });
      await outbox.add<HttpMessage>(context, {
        name: 'ship-order',
        sender: 'http',
        payload: {
          url: `${options.warehouseUrl}/shipments`,
          json: { order: orderId, payment: intent.id },
        },
      });
      options.beforeCommit?.(event.id);
      return { booked: intent.id };
    },
  });

  const app = express();
  app.post(
    '/webhooks/stripe',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset: stripe, transactional: true }),
  );
  app.use(idempotencyErrors());
  const logError = options.logError ?? console.error;
  const failed: ErrorRequestHandler = (error, _req, res, _next) => {
    logError(error);
    // Not stored: Stripe retries a 500, and the retry runs the handler again (its transaction,
    // the booking and both messages with it, was rolled back).
    res.status(500).json({ error: 'internal error' });
  };
  app.use(failed);

  return {
    app,
    db,
    messages,
    close() {
      db.close();
      storeDb.close();
    },
  };
}

/** Options of {@link createDispatcher}. */
export interface DispatcherOptions {
  /** Where the receipt emails go out: a nodemailer transport (`nodemailer.createTransport(…)`). */
  readonly mail: MailTransport;
  /** Wait between lease calls while nothing is due; 1000 ms unless set. */
  readonly pollIntervalMs?: number;
  /** The first retry's delay; 1000 ms unless set. */
  readonly backoffBaseMs?: number;
  readonly onEvent?: (event: OutboxEvent) => void;
}

/**
 * The dispatcher: leases the committed messages and sends each with its sender, the effect key on
 * every attempt (`Idempotency-Key` on the warehouse call, the email's `Message-ID`), retrying
 * with backoff until the receiving side accepts it.
 */
export function createDispatcher(shop: Shop, options: DispatcherOptions): OutboxDispatcher {
  return createOutboxDispatcher({
    outbox: shop.messages,
    senders: {
      email: emailSender(options.mail, {
        messageIdDomain: 'shop.example.com',
        defaults: { from: 'Shop <billing@shop.example.com>' },
      }),
      http: httpSender(),
    },
    pollIntervalMs: options.pollIntervalMs,
    backoffBaseMs: options.backoffBaseMs,
    onEvent: options.onEvent,
  });
}
