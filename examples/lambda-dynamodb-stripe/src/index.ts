/**
 * @module The Lambda function's entry (`handler`): set STRIPE_WEBHOOK_SECRET; the region and
 * credentials come from the function's role as for any SDK client. Built once per cold start.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createStripeHandler } from './handler';

const secret = process.env.STRIPE_WEBHOOK_SECRET;
if (!secret) throw new Error('Set STRIPE_WEBHOOK_SECRET (the endpoint signing secret, whsec_…)');

export const handler = createStripeHandler({
  client: new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  }),
  secret,
  tables: { receipts: 'webhook_receipts', orders: 'orders', payments: 'payments' },
});
