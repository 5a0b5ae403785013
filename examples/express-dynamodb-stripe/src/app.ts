/**
 * @module A Stripe webhook on Express with its receipts in DynamoDB (`DynamoDBStore`), in
 * transactional mode. The Stripe preset checks `Stripe-Signature` on the raw bytes before any
 * claim and keys receipts on the event id. On `payment_intent.succeeded` the handler marks the
 * order paid (on the condition that it exists and is not paid yet) and books the payment; both
 * writes go in one `TransactWriteItems` with the receipt's completion, so the payment is booked
 * exactly once: a redelivery is replayed, a crash before the commit writes nothing.
 */
import { type DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { requireTransaction } from '@webhook-idempotency/core';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import express from 'express';
import type Stripe from 'stripe';

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

/** Builds the app with `POST /stripe/webhook`. */
export function createStripeApp({ client, secret, tables }: StripeAppOptions): StripeApp {
  const store = new DynamoDBStore(client, {
    table: tables.receipts,
    retentionSeconds: 30 * 86_400, // Stripe retries for three days; keep receipts longer
  });
  // Typed with Stripe's own events (`stripe` installed): the body is a `Stripe.Event`.
  const preset = providers.stripe<StripeEvents>({ secret });
  const app = express();
  app.post(
    '/stripe/webhook',
    express.raw({ type: 'application/json' }), // the signature is over the bytes as sent
    idempotent({
      store,
      preset,
      transactional: true,
      maxResponseBytes: 64 * 1024,
    }),
    (req, res) => {
      // The bytes the preset verified, parsed; Stripe's union narrows by `type` below.
      const event: EventOf<typeof preset> = JSON.parse(req.body.toString('utf8'));
      switch (event.type) {
        case 'payment_intent.succeeded':
          return paid(event.id, event.data.object, req.idempotency, res);
        default:
          res.json({ ignored: event.type });
      }
    },
  );
  app.use(idempotencyErrors()); // a DynamoDB outage: 503 with Retry-After, Stripe's cue to retry

  /** `payment_intent.succeeded`: the order paid and the payment booked, with the receipt. */
  function paid(
    eventId: string,
    intent: Stripe.PaymentIntent,
    idempotency: express.Request['idempotency'],
    res: express.Response,
  ): void {
    const orderId = intent.metadata.orderId;
    if (!orderId) {
      res.status(422).json({ error: 'no orderId in the payment intent metadata' });
      return;
    }
    const tx = requireTransaction(idempotency, store);
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
      Item: { orderId, eventId, intent: intent.id, amount: intent.amount },
    });
    res.json({ orderId, paid: intent.amount });
  }

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
