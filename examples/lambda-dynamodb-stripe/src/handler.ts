/**
 * @module A Stripe webhook as an AWS Lambda function behind an API Gateway HTTP API (payload 2.0),
 * its receipts in DynamoDB (`DynamoDBStore`), in transactional mode. The Stripe preset checks
 * `Stripe-Signature` over the body's bytes as sent (API Gateway's base64 decoded first) before any
 * claim and keys receipts on the event id. On `payment_intent.succeeded` the handler marks the
 * order paid (on the condition that it exists and is not paid yet) and books the payment; both
 * writes go in one `TransactWriteItems` with the receipt's completion, so the payment is booked
 * exactly once: a redelivery is replayed, a function that times out writes nothing.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { requireTransaction } from '@webhook-idempotency/core';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { bodyOf, type GuardedLambdaHandler, withIdempotency } from '@webhook-idempotency/lambda';
import * as providers from '@webhook-idempotency/providers';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

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

interface PaymentIntentEvent {
  id: string;
  type: string;
  data: { object: { id: string; amount: number; metadata?: { orderId?: string } } };
}

const json = (statusCode: number, value: unknown) => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
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
  return withIdempotency<APIGatewayProxyEventV2>(
    { store, preset: providers.stripe({ secret }), transactional: true, timeMarginMs: 1_000 },
    async (event, idempotency) => {
      const payment = JSON.parse(bodyOf(event).toString('utf8')) as PaymentIntentEvent;
      if (payment.type !== 'payment_intent.succeeded') return json(200, { ignored: payment.type });
      const intent = payment.data.object;
      const orderId = intent.metadata?.orderId;
      if (!orderId) return json(422, { error: 'no orderId in the payment intent metadata' });
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
        Item: { orderId, eventId: payment.id, intent: intent.id, amount: intent.amount },
      });
      return json(200, { orderId, paid: intent.amount });
    },
  );
}
