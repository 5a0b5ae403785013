/**
 * @module A Stripe webhook endpoint on Fastify. The Stripe preset checks `Stripe-Signature` on the
 * raw bytes before any claim and keys receipts on `event.id`; `routes()` gives
 * `payment_intent.succeeded` its handler, which books the payment through the guard's transaction,
 * so it commits together with the receipt. Other events are answered 200 with nothing stored.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import knex, { type Knex } from 'knex';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
import { Schema, SqlStore } from '@webhook-idempotency/sql';

/** Options of {@link buildApp}. */
export interface StripeAppOptions {
  /** The endpoint's signing secret (`whsec_…`) from the Stripe dashboard. */
  signingSecret: string;
  /** PostgreSQL URL; without it a SQLite file is used. */
  databaseUrl?: string;
  /** The SQLite file when there is no `databaseUrl`. Defaults to `stripe-webhooks.sqlite`. */
  sqliteFile?: string;
}

/** Connects to PostgreSQL when `databaseUrl` is set, otherwise to a SQLite file. */
export function connect(options: Pick<StripeAppOptions, 'databaseUrl' | 'sqliteFile'>): Knex {
  return options.databaseUrl
    ? knex({ client: 'pg', connection: options.databaseUrl, pool: { min: 0, max: 10 } })
    : knex({
        client: 'better-sqlite3',
        connection: { filename: options.sqliteFile ?? 'stripe-webhooks.sqlite' },
        useNullAsDefault: true,
      });
}

/** Creates the receipts table and the example's `payments` table (idempotent). */
export async function migrate(db: Knex): Promise<void> {
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

/** Builds the Fastify app with `POST /webhooks/stripe`. */
export async function buildApp(db: Knex, options: StripeAppOptions): Promise<FastifyInstance> {
  const store = new SqlStore(db);
  // Each Stripe event name its own handler, typed by Stripe's own events (`stripe` installed,
  // types only): the preset checks the signature, the route set names the event and runs its
  // route under the receipt. Every other event is answered 200 and neither stored nor run.
  const stripe = routes(providers.stripe<StripeEvents>({ secret: options.signingSecret }), {
    'payment_intent.succeeded': async (event, context) => {
      const intent = event.data.object; // Stripe.PaymentIntent
      const trx = requireTransaction(context, store); // Knex.Transaction
      // A second insert of the same intent would fail on the primary key: the guard makes sure
      // there is no second run for the same event.
      await trx('payments').insert({
        payment_intent: intent.id,
        amount: intent.amount_received,
        currency: intent.currency,
        event_id: event.id,
      });
      return { received: true }; // the answer: 200 JSON, stored, replayed
    },
  });
  const app = Fastify();
  await app.register(async (webhooks) => {
    // Scoped to this context: Stripe's signature needs the exact bytes.
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await webhooks.register(fastifyIdempotency, { store, preset: stripe, transactional: true });
    // The route set answers every request to this route itself (its routes' answers, 200 for an
    // event no route takes, 401 for a forged one): Fastify needs a handler, and none reaches it.
    webhooks.post('/webhooks/stripe', async (_request, reply) => reply.code(404).send());
  });
  return app;
}
