/**
 * docs/adapters/lambda.md: the snippets' handlers invoked with Stripe-signed HTTP API events, the
 * receipts in a DynamoDB table on the run's dynalite (reached through the SDK's own endpoint and
 * credential settings, as a function's environment would give them).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { lambdaContext, v2Event } from '@webhook-idempotency/adapter-conformance/apps/lambda';
import { receiptsTable } from '@webhook-idempotency/dynamodb';
// Types only: the module is imported once the environment below is set.
import type * as LambdaSnippets from '../src/lambda';

const SECRET = 'whsec_snippet';
Object.assign(process.env, {
  STRIPE_WEBHOOK_SECRET: SECRET,
  AWS_ENDPOINT_URL_DYNAMODB: process.env.WI_DYNALITE_URL,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
});

/** A Stripe event as API Gateway's HTTP API hands it to the function. */
function stripeEvent(id: string) {
  const body = JSON.stringify({ id, type: 'invoice.paid', data: { object: { id: 'in_1' } } });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  return v2Event({
    method: 'POST',
    path: '/webhooks/stripe',
    headers: [
      ['content-type', 'application/json'],
      ['stripe-signature', `t=${t},v1=${v1}`],
    ],
    body,
  });
}

let snippets: typeof LambdaSnippets;

beforeAll(async () => {
  const client = new DynamoDBClient({});
  await client
    .send(new CreateTableCommand(receiptsTable('webhook-receipts').create))
    .catch((error: Error) => {
      if (error.name !== 'ResourceInUseException') throw error;
    });
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: 'webhook-receipts' });
  client.destroy();
  snippets = await import('../src/lambda');
});

describe('docs/adapters/lambda.md', () => {
  it('minimal: a Stripe delivery runs once, its redelivery is replayed in the HTTP API shape', async () => {
    const id = `evt_${randomUUID()}`;
    const first = await snippets.handler(stripeEvent(id), lambdaContext());
    expect(first).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(first.body ?? '')).toEqual({ received: 'invoice.paid', attempts: 1 });
    const again = await snippets.handler(stripeEvent(id), lambdaContext());
    expect(again).toMatchObject({
      statusCode: 200,
      headers: { 'Idempotent-Replayed': 'true' },
      body: first.body,
    });
  });

  it('inbox: the endpoint stores and answers, the worker function drains it', async () => {
    const id = `evt_${randomUUID()}`;
    expect(await snippets.endpoint(stripeEvent(id), lambdaContext())).toMatchObject({
      statusCode: 200,
    });
    const drained = await snippets.worker(
      { 'detail-type': 'Scheduled Event' },
      lambdaContext(300_000),
    );
    expect(drained).toMatchObject({ claimed: 1, stoppedBy: 'empty' });
  });
});
