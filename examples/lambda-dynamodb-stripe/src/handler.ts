/**
 * @module A Stripe webhook as an AWS Lambda function behind an API Gateway HTTP API (payload 2.0),
 * its receipts in DynamoDB (`DynamoDBStore`), in transactional mode. The Stripe preset checks
 * `Stripe-Signature` over the body's bytes as sent (API Gateway's base64 decoded first) before any
 * claim and keys receipts on the event id. On `payment_intent.succeeded` its route marks the
 * order paid (on the condition that it exists and is not paid yet) and books the payment; both
 * writes go in one `TransactWriteItems` with the receipt's completion, so the payment is booked
 * exactly once: a redelivery is replayed, a function that times out writes nothing.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes, validated } from '@webhook-idempotency/core/routes';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { type GuardedLambdaHandler, withIdempotency } from '@webhook-idempotency/lambda';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { z } from 'zod';

/** Options of {@link createStripeHandler}. */
export interface StripeHandlerOptions {
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

/** The function's handler: build it once, at module scope (see ./index.ts). */
export function createStripeHandler({
  client,
  secret,
  tables,
}: StripeHandlerOptions): GuardedLambdaHandler<APIGatewayProxyEventV2> {
  const store = new DynamoDBStore(client, {
    table: tables.receipts,
    retentionSeconds: 30 * 86_400, // Stripe retries for three days; keep receipts longer
  });
  // The event names typed by Stripe's own events (`stripe`, types only): a misspelt name does not
  // compile. Every other event is answered 200 before any claim, nothing stored or run.
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
  // The route set answers every request itself; the handler is for what a preset passes through
  // unguarded, which Stripe's never does.
  return withIdempotency<APIGatewayProxyEventV2>(
    { store, preset: stripe, transactional: true, timeMarginMs: 1_000 },
    () => ({ statusCode: 404, body: '' }),
  );
}
