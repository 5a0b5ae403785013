/**
 * @module docs/adapters/lambda.md and packages/lambda/README.md: a Stripe webhook on API Gateway's
 * HTTP API with receipts in DynamoDB, the inbox endpoint and its scheduled worker function.
 * test/lambda.test.ts invokes each handler with the events API Gateway sends.
 */
// #region minimal
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { bodyOf, withIdempotency } from '@webhook-idempotency/lambda';
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvent, StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

// Module scope: built once per cold start, reused by every invocation of the container.
const store = new DynamoDBStore(new DynamoDBClient({}), { table: 'webhook-receipts' });

export const handler = withIdempotency<APIGatewayProxyEventV2>(
  {
    store,
    // Typed with Stripe's own events (`stripe` installed, types only).
    preset: providers.stripe<StripeEvents>({ secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
  },
  async (event, idempotency) => {
    const payload: StripeEvent = JSON.parse(bodyOf(event).toString('utf8')); // verified bytes
    // … change your data once per delivery …
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ received: payload.type, attempts: idempotency?.attempts }),
    };
  },
);
// #endregion minimal

// #region inbox
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
import { inbox, inboxWorker } from '@webhook-idempotency/lambda';

const deliveries = new InMemoryInbox(); // in production: SqlInbox over your database

// The HTTP function: verifies, stores the delivery and answers 200 at once.
export const endpoint = inbox({
  inbox: deliveries,
  preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
});

// The worker function, on an EventBridge schedule (every minute, a 5 minute timeout): each
// invocation drains what is due, in rounds that fit in its remaining time.
export const worker = inboxWorker({
  inbox: deliveries,
  store,
  visibilityTimeoutSeconds: 60,
  handlers: {
    stripe: async (delivery) => {
      const payload: StripeEvent = JSON.parse(delivery.body.toString('utf8')); // verified bytes
      // … change your data once per delivery …
      void payload;
    },
  },
});
// #endregion inbox
