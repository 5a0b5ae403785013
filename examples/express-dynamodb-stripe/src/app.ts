/**
 * @module A Stripe webhook on Express with its receipts in DynamoDB (`DynamoDBStore`), in
 * transactional mode. The Stripe preset checks `Stripe-Signature` on the raw bytes before any
 * claim and keys receipts on the event id. On `payment_intent.succeeded` its route marks the
 * order paid (on the condition that it exists and is not paid yet) and books the payment; both
 * writes go in one `TransactWriteItems` with the receipt's completion, so the payment is booked
 * exactly once: a redelivery is replayed, a crash before the commit writes nothing.
 */
import { type DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes, validated } from '@webhook-idempotency/core/routes';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import express from 'express';
import { z } from 'zod';

/** Options of {@link createStripeApp}. */
export interface StripeAppOptions {
  readonly client: DynamoDBClient;
  /** The endpoint's signing secret (`whsec_…`). */
  readonly secret: string;
  /** The tables: receipts, orders (key `id`), payments (key `orderId`, sort key `eventId`). */
  readonly tables: {
    readonly receipts: string;
    readonly orders: string;
    readonly payments: string;
  };
}

/** The app, and what it has booked. */
export interface StripeApp {
  readonly app: express.Express;
  /** The order as stored. */
  order(id: string): Promise<Record<string, unknown> | undefined>;
  /** The payments booked for an order. */
  payments(orderId: string): Promise<Record<string, unknown>[]>;
}

/**
 * A `payment_intent.succeeded` for one of the shop's orders: what the route reads, as a Standard
 * Schema. Stripe's own type cannot say that `metadata.orderId` is there (metadata is any string
 * map); the schema does, so an intent without it is refused with 422 before any claim.
 */
export const OrderPayment = z.object({
  id: z.string(),
  data: z.object({
    object: z.object({
      id: z.string(),
      amount: z.number().int().nonnegative(),
      metadata: z.object({ orderId: z.string().min(1) }),
    }),
  }),
});

/** Builds the app with `POST /stripe/webhook`. */
export function createStripeApp({ client, secret, tables }: StripeAppOptions): StripeApp {
  const store = new DynamoDBStore(client, {
    table: tables.receipts,
    retentionSeconds: 30 * 86_400, // Stripe retries for three days; keep receipts longer
  });
  // The event names typed by Stripe's own events (`stripe` installed, types only): a misspelt
  // name does not compile. Every other event is answered 200 before any claim, nothing stored.
  const stripe = routes(providers.stripe<StripeEvents>({ secret }), {
    // The order paid and the payment booked, with the receipt's completion.
    'payment_intent.succeeded': validated(OrderPayment, (event, context) => {
      const intent = event.data.object;
      const { orderId } = intent.metadata;
      const tx = requireTransaction(context, store);
      tx.update({
        TableName: tables.orders,
        Key: { id: orderId },
        UpdateExpression: 'SET #status = :paid, paidBy = :intent',
        ConditionExpression: 'attribute_exists(id) AND #status <> :paid',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':paid': 'paid', ':intent': intent.id },
      });
      tx.put({
        TableName: tables.payments,
        Item: { orderId, eventId: event.id, intent: intent.id, amount: intent.amount },
      });
      return { orderId, paid: intent.amount }; // the answer: 200 JSON, stored, replayed
    }),
  });
  const app = express();
  app.post(
    '/stripe/webhook',
    express.raw({ type: 'application/json' }), // the signature is over the bytes as sent
    idempotent({ store, preset: stripe, transactional: true, maxResponseBytes: 64 * 1024 }),
  );
  // A DynamoDB outage: 503 with Retry-After, Stripe's cue to retry; a refused payload: 422.
  app.use(idempotencyErrors());

  return {
    app,
    async order(id) {
      const { Item } = await client.send(
        new GetItemCommand({
          TableName: tables.orders,
          Key: { id: { S: id } },
          ConsistentRead: true,
        }),
      );
      return Item && unmarshall(Item);
    },
    async payments(orderId) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tables.payments,
          KeyConditionExpression: 'orderId = :order',
          ExpressionAttributeValues: { ':order': { S: orderId } },
          ConsistentRead: true,
        }),
      );
      return Items.map((item) => unmarshall(item));
    },
  };
}
