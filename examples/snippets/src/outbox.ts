/**
 * @module docs/outbox.md: the outbox's tables and stores over a `pg` Pool, a message recorded in
 * `guard.run`, in an Express handler and in an inbox worker's handler, the dispatcher in a process
 * of its own with the HTTP and email senders, and a sender of your own. Run by test/outbox.test.ts
 * against PostgreSQL, a local HTTP server and a local SMTP server.
 */
import type { OutboxDispatcher } from '@webhook-idempotency/core/outbox';
// #region setup
import pg from 'pg';
import { Outbox } from '@webhook-idempotency/core/outbox';
import { OutboxSchema, Schema, SqlOutbox, SqlStore } from '@webhook-idempotency/sql';
// #endregion setup
// #region guard-run
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
// #endregion guard-run
// #region express
import express from 'express';
import { requireTransaction } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { idempotent } from '@webhook-idempotency/express';
// #endregion express
// #region worker
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { SqlInbox } from '@webhook-idempotency/sql';
// #endregion worker
// #region dispatcher
import nodemailer from 'nodemailer';
import { createOutboxDispatcher, emailSender, httpSender } from '@webhook-idempotency/core/outbox';
// #endregion dispatcher
// #region own-sender
import Stripe from 'stripe';
import { type OutboxSender, PermanentSendFailure } from '@webhook-idempotency/core/outbox';
// #endregion own-sender

/** The tables and stores of docs/outbox.md; `DATABASE_URL` names a PostgreSQL database. */
export async function outboxSetup() {
  // #region setup
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await Schema.createTable(pool); // the receipts (webhook_receipts)
  await OutboxSchema.createTable(pool); // the messages (webhook_outbox)

  const store = new SqlStore(pool);
  // The messages' table, on the receipts store's connection: a message is inserted in the
  // transaction of the run that records it.
  const messages = new SqlOutbox(pool, { receipts: store });
  const outbox = new Outbox({ store: messages });
  // #endregion setup
  return { pool, store, messages, outbox };
}

/** The migration of docs/outbox.md: the statements to paste into your own migration tool. */
export function outboxStatements(): string[] {
  // #region migration
  const ddl = OutboxSchema.statements('postgres'); // or 'mysql', 'sqlite'
  // #endregion migration
  return ddl;
}

type Setup = Awaited<ReturnType<typeof outboxSetup>>;

/** An order paid and its receipt email recorded, in one `guard.run`. */
export async function payOrder(
  { store, outbox }: Setup,
  eventId: string,
  orderId: string,
  customerEmail: string,
) {
  // #region guard-run
  const guard = new IdempotencyGuard(store, { transactional: true });
  return guard.run(new RequestKey('stripe', eventId), async (context) => {
    await context.transaction!.query("UPDATE orders SET status = 'paid' WHERE id = $1", [orderId]);
    // A row inserted in this transaction: sent after the commit, never if the run rolls back.
    const key = await outbox.add(context, {
      name: 'receipt-email',
      sender: 'email',
      payload: { to: customerEmail, subject: 'Your receipt', text: `Order ${orderId} is paid.` },
    });
    return { key };
  });
  // #endregion guard-run
}

/** The Express endpoint of docs/outbox.md: the order shipped by a warehouse API, after the commit. */
export function shippingApp({ store, outbox }: Setup): express.Express {
  // #region express
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }),
    idempotent({
      store,
      preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
      transactional: true, // the handler's writes, its messages and the receipt commit together
    }),
    async (req, res) => {
      const event = JSON.parse(req.body.toString('utf8'));
      const order = event.data.object.metadata.order_id;
      const tx = requireTransaction(req.idempotency, store); // a pg.PoolClient inside BEGIN
      await tx.query("UPDATE orders SET status = 'paid' WHERE id = $1", [order]);
      // POSTed to the warehouse after the commit, with Idempotency-Key: effectKey('ship').
      await outbox.add(req.idempotency!, {
        name: 'ship',
        sender: 'http',
        payload: { url: `${process.env.WAREHOUSE_URL}/shipments`, json: { order } },
      });
      res.json({ paid: order });
    },
  );
  // #endregion express
  return app;
}

/** The inbox worker of docs/outbox.md: an invoice paid and its email recorded in the delivery's run. */
export function invoiceWorker({ pool, store, outbox }: Setup) {
  // #region worker
  const worker = createInboxWorker({
    inbox: new SqlInbox(pool, { receipts: store }),
    store,
    handlers: {
      stripe: async (delivery, context) => {
        const event = JSON.parse(delivery.body.toString('utf8'));
        if (event.type !== 'invoice.paid') return;
        const invoice = event.data.object;
        await context.transaction!.query('UPDATE invoices SET paid = true WHERE id = $1', [
          invoice.id,
        ]);
        await outbox.add(context, {
          name: 'invoice-email',
          sender: 'email',
          payload: { to: invoice.customer_email, subject: `Invoice ${invoice.number} is paid` },
        });
      },
    },
  });
  // #endregion worker
  return worker;
}

/** The dispatcher of docs/outbox.md, in a process of its own: `DATABASE_URL`, `SMTP_URL`. */
export function startDispatcher(): { dispatcher: OutboxDispatcher; pool: pg.Pool } {
  // #region dispatcher
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  const mail = nodemailer.createTransport(process.env.SMTP_URL); // smtp://user:password@host:587
  const dispatcher = createOutboxDispatcher({
    outbox: new SqlOutbox(pool, { receipts: new SqlStore(pool) }),
    senders: {
      http: httpSender(), // the key in an Idempotency-Key header
      email: emailSender(mail, {
        messageIdDomain: 'billing.example.com', // Message-ID: <key@billing.example.com>
        defaults: { from: 'Billing <billing@example.com>' },
      }),
    },
  });
  dispatcher.start();

  process.once('SIGTERM', async () => {
    await dispatcher.stop(); // waits for the sends in flight, gives back the rest
    mail.close();
    await pool.end();
  });
  // #endregion dispatcher
  return { dispatcher, pool };
}

/** A sender of your own: a Stripe refund through the SDK, the message's key as Stripe's. */
export function refundSender(stripe: Stripe): OutboxSender<Stripe.RefundCreateParams> {
  // #region own-sender
  const refunds: OutboxSender<Stripe.RefundCreateParams> = async ({ key, payload }) => {
    try {
      // Every attempt sends the message's key: Stripe answers a repeat with the first refund.
      await stripe.refunds.create(payload, { idempotencyKey: key });
    } catch (error) {
      // A refusal no retry can change (the charge was refunded already, a bad amount): dead now.
      if (error instanceof Stripe.errors.StripeInvalidRequestError)
        throw new PermanentSendFailure(error.message, { cause: error });
      throw error; // a network error, a 429, a 5xx: tried again later, under the same key
    }
  };
  // #endregion own-sender
  return refunds;
}
