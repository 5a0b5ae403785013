/**
 * The Lambda + DynamoDB + Stripe example, invoked as API Gateway's HTTP API invokes it (Stripe
 * signed payload 2.0 events, some with the body base64-encoded), on the run's DynamoDB Local:
 * payments booked once with their receipts however often Stripe redelivers, the replay in the
 * HTTP API's result shape, a forged signature refused before any claim, an SQS event refused.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { lambdaContext, v2Event } from '@webhook-idempotency/adapter-conformance/apps/lambda';
import { DynamoDBStore, receiptsTable } from '@webhook-idempotency/dynamodb';
import { UnsupportedEventError } from '@webhook-idempotency/lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import Stripe from 'stripe';
import { createStripeHandler } from '../src/handler';

const secret = 'whsec_test_lambda_example';
const stripe = new Stripe('sk_test_unused');
const run = randomUUID().slice(0, 8);
const tables = {
  receipts: `lx-receipts-${run}`,
  orders: `lx-orders-${run}`,
  payments: `lx-payments-${run}`,
};

let client: DynamoDBClient;
let handler: ReturnType<typeof createStripeHandler>;

beforeAll(async () => {
  client = new DynamoDBClient({
    endpoint: process.env.WI_DYNAMODB_LOCAL_URL,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(new CreateTableCommand(receiptsTable(tables.receipts).create));
  await client.send(
    new CreateTableCommand({
      TableName: tables.orders,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: tables.payments,
      KeySchema: [
        { AttributeName: 'orderId', KeyType: 'HASH' },
        { AttributeName: 'eventId', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'orderId', AttributeType: 'S' },
        { AttributeName: 'eventId', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  handler = createStripeHandler({ client, secret, tables });
});
afterAll(async () => {
  for (const TableName of Object.values(tables))
    await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  client.destroy();
});

const openOrder = (id: string) =>
  client.send(
    new PutItemCommand({
      TableName: tables.orders,
      Item: { id: { S: id }, status: { S: 'open' } },
    }),
  );
const order = async (id: string) => {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: tables.orders, Key: { id: { S: id } }, ConsistentRead: true }),
  );
  return Item && unmarshall(Item);
};
const payments = async (orderId: string) => {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tables.payments,
      KeyConditionExpression: 'orderId = :order',
      ExpressionAttributeValues: { ':order': { S: orderId } },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => unmarshall(item));
};

/** A Stripe-signed payment event, as the HTTP API hands it to the function. */
function stripeEvent(eventId: string, orderId: string, key = secret, base64 = false) {
  const body = JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: `pi_${eventId}`,
        object: 'payment_intent',
        amount: 2500,
        metadata: { orderId },
      },
    },
  });
  const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: key });
  const event: APIGatewayProxyEventV2 = v2Event({
    method: 'POST',
    path: '/stripe/webhook',
    headers: [
      ['content-type', 'application/json'],
      ['stripe-signature', signature],
      ['user-agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)'],
    ],
    body,
  });
  return base64
    ? { ...event, body: Buffer.from(body).toString('base64'), isBase64Encoded: true }
    : event;
}

it('books a payment once with its receipt, however often it is redelivered, concurrent invocations included', async () => {
  await openOrder('ord_1');
  const first = await handler(stripeEvent('evt_1', 'ord_1'), lambdaContext());
  expect(first).toMatchObject({
    statusCode: 200,
    body: JSON.stringify({ orderId: 'ord_1', paid: 2500 }),
  });
  const retries = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      handler(stripeEvent('evt_1', 'ord_1', secret, i % 2 === 0), lambdaContext()),
    ),
  );
  for (const retry of retries) {
    // Every retry is the first answer replayed, in the HTTP API's shape.
    expect(retry).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' },
      body: first.body,
      isBase64Encoded: false,
    });
  }
  expect(await order('ord_1')).toEqual({ id: 'ord_1', status: 'paid', paidBy: 'pi_evt_1' });
  expect(await payments('ord_1')).toEqual([
    { orderId: 'ord_1', eventId: 'evt_1', intent: 'pi_evt_1', amount: 2500 },
  ]);
});

it('a base64-encoded body is verified over its decoded bytes', async () => {
  await openOrder('ord_4');
  const result = await handler(stripeEvent('evt_4', 'ord_4', secret, true), lambdaContext());
  expect(result).toMatchObject({ statusCode: 200 });
  expect(await payments('ord_4')).toHaveLength(1);
});

it('refuses a forged signature before any claim', async () => {
  await openOrder('ord_3');
  const forged = await handler(
    stripeEvent('evt_3', 'ord_3', 'whsec_not_the_secret'),
    lambdaContext(),
  );
  expect(forged).toMatchObject({ statusCode: 401 });
  const receipts = new DynamoDBStore(client, { table: tables.receipts });
  expect(
    await receipts.find({ provider: 'stripe', externalId: 'evt_3' }, { now: Date.now() }),
  ).toBeNull();
  expect(await order('ord_3')).toEqual({ id: 'ord_3', status: 'open' });
  expect(await payments('ord_3')).toEqual([]);
});

it('refuses an event of another source (an SQS message sent to the HTTP function)', async () => {
  const sqs = { Records: [{ messageId: 'm1', body: '{}', eventSource: 'aws:sqs' }] };
  await expect(handler(sqs as never, lambdaContext())).rejects.toThrow(UnsupportedEventError);
});
