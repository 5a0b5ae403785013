/**
 * @module Serves the Stripe webhook on PORT (default 3000); set STRIPE_WEBHOOK_SECRET, and the
 * AWS region and credentials as for any SDK client (AWS_ENDPOINT_URL_DYNAMODB for a local server).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createStripeApp } from './app';

const secret = process.env.STRIPE_WEBHOOK_SECRET;
if (!secret) throw new Error('Set STRIPE_WEBHOOK_SECRET (the endpoint signing secret, whsec_…)');
const client = new DynamoDBClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
});
createStripeApp({
  client,
  secret,
  tables: { receipts: 'webhook_receipts', orders: 'orders', payments: 'payments' },
}).app.listen(Number(process.env.PORT ?? 3000));
