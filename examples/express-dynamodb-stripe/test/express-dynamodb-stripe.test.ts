/**
 * The Express + DynamoDB + Stripe example over HTTP, on the run's DynamoDB Local: signed payments
 * booked once with their receipts, however often Stripe redelivers; a payment whose order fails
 * the write's condition books nothing; a forged signature claims nothing.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStore, receiptsTable } from '@webhook-idempotency/dynamodb';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { createStripeApp, type StripeApp } from '../src/app';

const secret = 'whsec_test_dynamodb_example';
const stripe = signers.stripe({ secret, url: 'https://shop.example.com/stripe/webhook' });
const run = randomUUID().slice(0, 8);
const tables = {
  receipts: `ex-receipts-${run}`,
  orders: `ex-orders-${run}`,
  payments: `ex-payments-${run}`,
};

let client: DynamoDBClient;
let shop: StripeApp;

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
  shop = createStripeApp({ client, secret, tables });
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

/** A `payment_intent.succeeded` for `orderId`, as Stripe signs it. */
const succeeded = (eventId: string, orderId: string) =>
  stripe.event({
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

const send = (delivery: signers.Delivery) => signers.send.supertest(request(shop.app), delivery);

it('books a payment once with its receipt, however often it is redelivered, concurrent retries included', async () => {
  await openOrder('ord_1');
  const delivery = succeeded('evt_1', 'ord_1');
  const first = await send(delivery).expect(200, { orderId: 'ord_1', paid: 2500 });
  const retries = await Promise.all(Array.from({ length: 8 }, () => send(delivery.retry())));
  for (const res of retries) {
    // A retry that meets the commit in flight is answered 503 (DynamoDB's TransactionConflict) or
    // 409; every other one is the first answer, replayed.
    expect([200, 409, 503]).toContain(res.status);
    if (res.status === 200) {
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body).toEqual(first.body);
    }
  }
  const replay = await send(delivery.retry()).expect(200);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(await shop.order('ord_1')).toEqual({ id: 'ord_1', status: 'paid', paidBy: 'pi_evt_1' });
  expect(await shop.payments('ord_1')).toEqual([
    { orderId: 'ord_1', eventId: 'evt_1', intent: 'pi_evt_1', amount: 2500 },
  ]);
});

it('a second payment event for a paid order fails the write’s condition: nothing booked, and it is answered as a failure', async () => {
  await openOrder('ord_2');
  await send(succeeded('evt_2a', 'ord_2')).expect(200);
  const again = await send(succeeded('evt_2b', 'ord_2'));
  expect(again.status).toBe(500);
  expect(await shop.payments('ord_2')).toEqual([
    { orderId: 'ord_2', eventId: 'evt_2a', intent: 'pi_evt_2a', amount: 2500 },
  ]);
});

const receiptOf = (externalId: string) =>
  new DynamoDBStore(client, { table: tables.receipts }).find(
    { provider: 'stripe', externalId },
    { now: Date.now() },
  );

it('acknowledges an event no route takes before any claim: 200, no receipt', async () => {
  const other = stripe.event({ id: 'evt_c', type: 'customer.created', data: { object: {} } });
  await send(other).expect(200, { received: true });
  expect(await receiptOf('evt_c')).toBeNull();
});

it('refuses a payment intent without the order it pays with 422 before any claim: no receipt, nothing booked', async () => {
  await openOrder('ord_4');
  const foreign = stripe.event({
    id: 'evt_4',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_evt_4', object: 'payment_intent', amount: 2500, metadata: {} } },
  });
  const res = await send(foreign).expect(422);
  expect(res.body).toMatchObject({
    code: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
    issues: [expect.stringContaining('data.object.metadata.orderId')],
  });
  expect(await receiptOf('evt_4')).toBeNull();
  expect(await shop.order('ord_4')).toEqual({ id: 'ord_4', status: 'open' });
  expect(await shop.payments('ord_4')).toEqual([]);
});

it('refuses a forged signature before any claim', async () => {
  await openOrder('ord_3');
  await send(succeeded('evt_3', 'ord_3').forged()).expect(401);
  expect(await receiptOf('evt_3')).toBeNull();
  expect(await shop.order('ord_3')).toEqual({ id: 'ord_3', status: 'open' });
  expect(await shop.payments('ord_3')).toEqual([]);
});
