/**
 * The Lambda + DynamoDB + Stripe example, invoked as API Gateway's HTTP API invokes it (payload
 * 2.0 events carrying deliveries signed by the test kit, some with the body base64-encoded), on
 * the run's DynamoDB Local:
 * payments booked once with their receipts however often Stripe redelivers, the replay in the
 * HTTP API's result shape, a forged signature refused before any claim, an event no route takes
 * acknowledged and an intent without its order refused (422), neither leaving a receipt, and an
 * SQS event refused.
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
import * as signers from '@webhook-idempotency/providers/testing';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createStripeHandler } from '../src/handler';

const secret = 'whsec_test_lambda_example';
const signer = signers.stripe({ secret, url: 'https://api.example.com/stripe/webhook' });
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

/** A `payment_intent.succeeded` for `orderId`, as Stripe signs it (the test kit). */
const succeeded = (eventId: string, orderId: string) =>
  signer.event({
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

/** A delivery as the HTTP API hands it to the function (payload 2.0), its body base64 or not. */
function httpApiEvent(delivery: signers.Delivery, base64 = false): APIGatewayProxyEventV2 {
  const event = v2Event({
    method: 'POST',
    path: delivery.path,
    headers: Object.entries(delivery.headers),
    body: delivery.body.toString('utf8'),
  });
  return base64
    ? { ...event, body: delivery.body.toString('base64'), isBase64Encoded: true }
    : event;
}

const invoke = (delivery: signers.Delivery, base64 = false) =>
  handler(httpApiEvent(delivery, base64), lambdaContext());

const receiptOf = (externalId: string) =>
  new DynamoDBStore(client, { table: tables.receipts }).find(
    { provider: 'stripe', externalId },
    { now: Date.now() },
  );

it('books a payment once with its receipt, however often it is redelivered, concurrent invocations included', async () => {
  await openOrder('ord_1');
  const delivery = succeeded('evt_1', 'ord_1');
  const first = await invoke(delivery);
  expect(first).toMatchObject({
    statusCode: 200,
    body: JSON.stringify({ orderId: 'ord_1', paid: 2500 }),
  });
  const retries = await Promise.all(
    Array.from({ length: 8 }, (_, i) => invoke(delivery.retry(), i % 2 === 0)),
  );
  for (const retry of retries) {
    // Every retry is the first answer replayed, in the HTTP API's shape.
    expect(retry).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' },
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
  const result = await invoke(succeeded('evt_4', 'ord_4'), true);
  expect(result).toMatchObject({ statusCode: 200 });
  expect(await payments('ord_4')).toHaveLength(1);
});

it('refuses a forged signature before any claim', async () => {
  await openOrder('ord_3');
  const forged = await invoke(succeeded('evt_3', 'ord_3').forged());
  expect(forged).toMatchObject({ statusCode: 401 });
  expect(await receiptOf('evt_3')).toBeNull();
  expect(await order('ord_3')).toEqual({ id: 'ord_3', status: 'open' });
  expect(await payments('ord_3')).toEqual([]);
});

it('acknowledges an event no route takes before any claim: 200, no receipt', async () => {
  const other = signer.event({ id: 'evt_c', type: 'customer.created', data: { object: {} } });
  expect(await invoke(other)).toMatchObject({
    statusCode: 200,
    body: JSON.stringify({ received: true }),
  });
  expect(await receiptOf('evt_c')).toBeNull();
});

it('refuses a payment intent without the order it pays with 422 before any claim: no receipt, nothing booked', async () => {
  await openOrder('ord_5');
  const foreign = signer.event({
    id: 'evt_5',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_evt_5', object: 'payment_intent', amount: 2500, metadata: {} } },
  });
  const result = await invoke(foreign);
  expect(result.statusCode).toBe(422);
  expect(JSON.parse(String(result.body))).toMatchObject({
    code: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
    issues: [expect.stringContaining('data.object.metadata.orderId')],
  });
  expect(await receiptOf('evt_5')).toBeNull();
  expect(await order('ord_5')).toEqual({ id: 'ord_5', status: 'open' });
  expect(await payments('ord_5')).toEqual([]);
});

it('refuses an event of another source (an SQS message sent to the HTTP function)', async () => {
  const sqs = { Records: [{ messageId: 'm1', body: '{}', eventSource: 'aws:sqs' }] };
  await expect(handler(sqs as never, lambdaContext())).rejects.toThrow(UnsupportedEventError);
});
