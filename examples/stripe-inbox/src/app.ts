/**
 * @module Stripe webhooks in inbox mode: `POST /webhooks/stripe` verifies `Stripe-Signature` on the
 * raw bytes, stores the event and answers 200 without running any business code; a worker books
 * `payment_intent.succeeded` later, exactly once, in the same transaction as its receipt.
 */
import { createInboxWorker, type InboxWorker } from '@webhook-idempotency/core/inbox';
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

/** The endpoint: verify, store, answer. No business code runs here, and it writes only to the inbox. */
export function buildApp(dbs: Databases, signingSecret: string): Express {
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }),
    inbox({
      inbox: new SqlInbox(dbs.inbox),
      // Typed with Stripe's own events (`stripe` installed, types only).
      preset: providers.stripe<StripeEvents>({ secret: signingSecret }),
      // One customer's events are booked one at a time, in the order they arrived.
      orderingKey: (_req, body) => customerOf(JSON.parse(body.toString('utf8'))),
    }),
  );
  return app;
}

/** The worker: books each `payment_intent.succeeded` once, with its receipt, in one transaction. */
export function buildWorker(
  dbs: Databases,
  options: { pollIntervalMs?: number } = {},
): InboxWorker {
  return createInboxWorker({
    inbox: new SqlInbox(dbs.inbox),
    // The receipts live with the payments: the booking and its receipt commit together.
    store: new SqlStore(dbs.app),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    handlers: {
      stripe: async (delivery, { transaction }) => {
        // The bytes the endpoint verified; Stripe's `Stripe.Event` union narrows by `type`.
        const event: StripeEvent = JSON.parse(delivery.body.toString('utf8'));
        switch (event.type) {
          case 'payment_intent.succeeded': {
            const intent = event.data.object; // Stripe.PaymentIntent
            await transaction!('payments').insert({
              payment_intent: intent.id,
              amount: intent.amount_received,
              currency: intent.currency,
              event_id: event.id,
            });
            return { booked: intent.id };
          }
          default:
            return { ignored: event.type };
        }
      },
    },
  });
}
