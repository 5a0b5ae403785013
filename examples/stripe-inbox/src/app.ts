/**
 * @module Stripe webhooks in inbox mode: `POST /webhooks/stripe` verifies `Stripe-Signature` on the
 * raw bytes, stores the event and answers 200 without running any business code; a worker runs
 * the `payment_intent.succeeded` route later, exactly once, in the same transaction as its
 * receipt. Events no route takes are answered 200 and never stored.
 */
import { requireTransaction } from '@webhook-idempotency/core';
import { createInboxWorker, type InboxWorker } from '@webhook-idempotency/core/inbox';
import { routes } from '@webhook-idempotency/core/routes';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvent, StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { inbox } from '@webhook-idempotency/express';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import express, { type Express } from 'express';
import knex, { type Knex } from 'knex';

/**
 * Where the example's tables live: `app` holds the receipts and the `payments`, `inbox` the
 * deliveries. On PostgreSQL both are one pool. On SQLite they are two files: SQLite has one write
 * lock per file, and a worker's transaction holds it from the handler's first write until its
 * commit, so an inbox table in the same file would make the endpoint's INSERT (the provider's
 * acknowledgement) wait for the slowest handler. In a file of its own, the inbox is written only
 * by short statements (store, claim, settle), and the endpoint answers at once.
 */
export interface Databases {
  readonly app: Knex;
  readonly inbox: Knex;
  destroy(): Promise<void>;
}

function sqlite(filename: string): Knex {
  return knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // WAL: readers never wait for the writer; the claim and the endpoint take turns on the lock.
    pool: {
      afterCreate: (db: { pragma(sql: string): unknown }, done: () => void) => {
        db.pragma('journal_mode = WAL');
        done();
      },
    },
  });
}

/** PostgreSQL when `databaseUrl` is set, otherwise two SQLite files: `<sqliteFile>` and `<sqliteFile>.inbox`. */
export function connect(options: { databaseUrl?: string; sqliteFile?: string }): Databases {
  if (options.databaseUrl) {
    const db = knex({ client: 'pg', connection: options.databaseUrl, pool: { min: 0, max: 10 } });
    return { app: db, inbox: db, destroy: () => db.destroy() };
  }
  const file = options.sqliteFile ?? 'stripe-inbox.sqlite';
  const app = sqlite(file);
  const inbox = sqlite(`${file}.inbox`);
  return {
    app,
    inbox,
    destroy: async () => {
      await Promise.all([app.destroy(), inbox.destroy()]);
    },
  };
}

/** The deliveries, the receipts and the example's `payments` table (idempotent). */
export async function migrate(dbs: Databases): Promise<void> {
  await InboxSchema.createTable(dbs.inbox);
  const db = dbs.app;
  await Schema.createTable(db);
  if (!(await db.schema.hasTable('payments'))) {
    await db.schema.createTable('payments', (t) => {
      t.string('payment_intent', 64).primary();
      t.bigInteger('amount').notNullable();
      t.string('currency', 8).notNullable();
      t.string('event_id', 64).notNullable();
    });
  }
}

/** The customer an event's object names (most of Stripe's objects do), if any: its ordering key. */
function customerOf(event: StripeEvent): string | undefined {
  const object: object = event.data.object;
  return 'customer' in object && typeof object.customer === 'string' ? object.customer : undefined;
}

/**
 * The route set both sides share, typed by Stripe's own events (`stripe` installed, types only):
 * the endpoint stores only the events a route takes (the others are answered 200 and never
 * stored), and the worker runs each stored one's route, in the same transaction as its receipt.
 */
export function stripeRoutes(signingSecret: string, store: SqlStore<Knex>) {
  return routes(providers.stripe<StripeEvents>({ secret: signingSecret }), {
    'payment_intent.succeeded': async (event, context) => {
      const intent = event.data.object; // Stripe.PaymentIntent
      await requireTransaction(
        context,
        store,
      )('payments').insert({
        payment_intent: intent.id,
        amount: intent.amount_received,
        currency: intent.currency,
        event_id: event.id,
      });
      return { booked: intent.id };
    },
  });
}

/** The endpoint: verify, store, answer. No business code runs here, and it writes only to the inbox. */
export function buildApp(dbs: Databases, signingSecret: string): Express {
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }),
    inbox({
      inbox: new SqlInbox(dbs.inbox),
      // The route set names the event; no route runs here.
      preset: stripeRoutes(signingSecret, new SqlStore(dbs.app)),
      // One customer's events are booked one at a time, in the order they arrived.
      orderingKey: (_req, body) => customerOf(JSON.parse(body.toString('utf8'))),
    }),
  );
  return app;
}

/** The worker: books each `payment_intent.succeeded` once, with its receipt, in one transaction. */
export function buildWorker(
  dbs: Databases,
  signingSecret: string,
  options: { pollIntervalMs?: number } = {},
): InboxWorker {
  // The receipts live with the payments: the booking and its receipt commit together.
  const store = new SqlStore(dbs.app);
  return createInboxWorker({
    inbox: new SqlInbox(dbs.inbox),
    store,
    pollIntervalMs: options.pollIntervalMs ?? 500,
    handlers: { stripe: stripeRoutes(signingSecret, store) },
  });
}
