/**
 * @module Stripe webhooks in inbox mode: `POST /webhooks/stripe` verifies `Stripe-Signature` on the
 * raw bytes, stores the event and answers 200 without running any business code; a worker books
 * `payment_intent.succeeded` later, exactly once, in the same transaction as its receipt.
 */
import { createInboxWorker, type InboxWorker, providers } from '@webhook-idempotency/core';
import { inbox } from '@webhook-idempotency/express';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import express, { type Express } from 'express';
import knex, { type Knex } from 'knex';

interface StripeEvent {
  id: string;
  type: string;
  data: { object: { id: string; amount_received?: number; currency?: string; customer?: string } };
}

/** PostgreSQL when `databaseUrl` is set, otherwise a SQLite file. */
export function connect(options: { databaseUrl?: string; sqliteFile?: string }): Knex {
  return options.databaseUrl
    ? knex({ client: 'pg', connection: options.databaseUrl, pool: { min: 0, max: 10 } })
    : knex({
        client: 'better-sqlite3',
        connection: { filename: options.sqliteFile ?? 'stripe-inbox.sqlite' },
        useNullAsDefault: true,
      });
}

/** The deliveries, the receipts and the example's `payments` table (idempotent). */
export async function migrate(db: Knex): Promise<void> {
  await InboxSchema.createTable(db);
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

/** The endpoint: verify, store, answer. No business code runs here. */
export function buildApp(db: Knex, signingSecret: string): Express {
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }),
    inbox({
      inbox: new SqlInbox(db),
      preset: providers.stripe({ secret: signingSecret }),
      // One customer's events are booked one at a time, in the order they arrived.
      orderingKey: (_req, body) =>
        (JSON.parse(body.toString('utf8')) as StripeEvent).data?.object?.customer,
    }),
  );
  return app;
}

/** The worker: books each `payment_intent.succeeded` once, with its receipt, in one transaction. */
export function buildWorker(db: Knex, options: { pollIntervalMs?: number } = {}): InboxWorker {
  return createInboxWorker({
    inbox: new SqlInbox(db),
    store: new SqlStore(db),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    handlers: {
      stripe: async (delivery, { transaction }) => {
        const event = JSON.parse(delivery.body.toString('utf8')) as StripeEvent;
        if (event.type !== 'payment_intent.succeeded') return { ignored: event.type };
        const intent = event.data.object;
        await transaction!('payments').insert({
          payment_intent: intent.id,
          amount: intent.amount_received ?? 0,
          currency: intent.currency ?? 'usd',
          event_id: event.id,
        });
        return { booked: intent.id };
      },
    },
  });
}
