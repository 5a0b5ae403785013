/**
 * docs/stores.md, "DynamoDBStore": the client, the table, transactional completion (through the
 * guard and over Express) and the document client, on the run's DynamoDB Local.
 */
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import request from 'supertest';
import {
  bookPayment,
  clientExample,
  createReceiptsTable,
  documentClientStore,
  expressApp,
} from '../src/stores-dynamodb';

const run = `${Date.now()}-${process.pid}`;
const ENV = {
  AWS_ENDPOINT_URL_DYNAMODB: process.env.WI_DYNAMODB_LOCAL_URL,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
};
let client: DynamoDBClient;

beforeAll(async () => {
  if (!ENV.AWS_ENDPOINT_URL_DYNAMODB)
    throw new Error('WI_DYNAMODB_LOCAL_URL is not set: run through jest');
  Object.assign(process.env, ENV);
  client = new DynamoDBClient({});
  await createReceiptsTable(client);
  await client.send(
    new CreateTableCommand({
      TableName: 'orders',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});
afterAll(() => {
  client.destroy();
  for (const name of Object.keys(ENV)) delete process.env[name];
});

const order = async (id: string) =>
  (
    await client.send(
      new GetItemCommand({ TableName: 'orders', Key: { id: { S: id } }, ConsistentRead: true }),
    )
  ).Item;

it('the table: created with its key and TTL on expiresAt', async () => {
  const { TimeToLiveDescription } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: 'webhook_receipts' }),
  );
  expect(TimeToLiveDescription).toMatchObject({
    AttributeName: 'expiresAt',
    TimeToLiveStatus: 'ENABLED',
  });
});

it('the client: the build is queued once; the redelivery is a replay, and the receipt expires in 7 days', async () => {
  const queueBuild = jest.fn(async () => undefined);
  const deliveryId = `72d3162e-${run}`;
  const first = await clientExample(deliveryId, queueBuild);
  const second = await clientExample(deliveryId, queueBuild);
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(queueBuild).toHaveBeenCalledTimes(1);
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: 'webhook_receipts',
        Key: { id: { S: `github\u0000${deliveryId}` } },
      }),
    );
    const expiresAt = Number(Item?.expiresAt?.N) * 1000;
    expect(expiresAt - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(7 * 86_400_000 + 1000);
  } finally {
    first.client.destroy();
    second.client.destroy();
  }
});

it('transactional: the order is paid once, with its receipt; the redelivery replays', async () => {
  const event = { id: `evt_${run}`, data: { object: { metadata: { orderId: `ord_${run}` } } } };
  expect(await bookPayment(client, event)).toMatchObject({
    isReplay: false,
    response: { received: true },
  });
  expect(await order(`ord_${run}`)).toMatchObject({
    paid: { BOOL: true },
    paymentEvent: { S: event.id },
  });
  expect(await bookPayment(client, event)).toMatchObject({ isReplay: true });
});

it('express: the shipment and the receipt commit together; a failed condition or a body the schema refuses writes neither', async () => {
  const app = expressApp(client);
  await client.send(
    new PutItemCommand({ TableName: 'orders', Item: { id: { S: `ship_${run}` } } }),
  );
  const first = await request(app)
    .post('/webhooks/orders')
    .set('x-delivery-id', `d1-${run}`)
    .send(JSON.stringify({ orderId: `ship_${run}` }));
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ shipped: `ship_${run}` });
  expect(await order(`ship_${run}`)).toMatchObject({ shipped: { BOOL: true } });
  const replay = await request(app)
    .post('/webhooks/orders')
    .set('x-delivery-id', `d1-${run}`)
    .send(JSON.stringify({ orderId: `ship_${run}` }));
  expect(replay.status).toBe(200);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  // No such order: the condition fails as the run commits, nothing is written, the receipt is failed.
  const missing = await request(app)
    .post('/webhooks/orders')
    .set('x-delivery-id', `d2-${run}`)
    .send(JSON.stringify({ orderId: `none_${run}` }));
  expect(missing.status).toBe(500);
  expect(await order(`none_${run}`)).toBeUndefined();
  const guard = new IdempotencyGuard(documentClientStore(client));
  expect(await guard.find({ provider: 'shop', externalId: `d2-${run}` })).toMatchObject({
    status: 'failed',
  }); // A body the schema refuses: 400 naming the field, nothing written, the receipt failed (retried).
  const refused = await request(app)
    .post('/webhooks/orders')
    .set('x-delivery-id', `d3-${run}`)
    .send(JSON.stringify({ orderId: 5 }));
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ properties: { orderId: { errors: [expect.any(String)] } } });
  expect(await guard.find({ provider: 'shop', externalId: `d3-${run}` })).toMatchObject({
    status: 'failed',
  });
});

it('the document client: the same store over DynamoDBDocumentClient', async () => {
  const guard = new IdempotencyGuard(documentClientStore(client));
  const handler = jest.fn(async () => 'done');
  const key = { provider: 'snippets', externalId: `document-${run}` };
  expect((await guard.run(key, handler)).isReplay).toBe(false);
  expect((await guard.run(key, handler)).isReplay).toBe(true);
  expect(handler).toHaveBeenCalledTimes(1);
});
