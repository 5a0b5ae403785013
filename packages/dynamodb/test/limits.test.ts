/**
 * The limits of one TransactWriteItems, on Amazon's DynamoDB Local: each is refused with
 * TransactionLimitExceeded naming it, before anything is sent (or, where only DynamoDB can tell,
 * as it refuses), and then nothing of the run is written and its receipt is failed.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import {
  DynamoDBStore,
  type DynamoDBTransaction,
  MAX_RESPONSE_BYTES,
  type TransactionLimit,
  TransactionLimitExceeded,
} from '../src';
import { clientFor, createTable, dropTable, freshTable, serverUrl } from './helpers/dynamodb';

let client: DynamoDBClient;
let receipts: string;
let orders: string;
let store: DynamoDBStore;
let guard: IdempotencyGuard<DynamoDBTransaction>;

beforeAll(async () => {
  client = clientFor(serverUrl('local'));
  receipts = freshTable('limit-receipts');
  orders = freshTable('limit-orders');
  await Promise.all([createTable(client, receipts), createTable(client, orders)]);
  store = new DynamoDBStore(client, { table: receipts });
  guard = new IdempotencyGuard(store, { transactional: true });
});
afterAll(async () => {
  await Promise.all([dropTable(client, receipts), dropTable(client, orders)]);
  client.destroy();
});

let counter = 0;
const freshKey = () => new RequestKey('shopify', `limit-${Date.now()}-${counter++}`);

async function exists(table: string, id: string): Promise<boolean> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true }),
  );
  return Item !== undefined;
}

const put = (tx: DynamoDBTransaction, id: string, extra: Record<string, unknown> = {}) =>
  tx.put({ TableName: orders, Item: { id, ...extra } });

/** Runs `writes` as a transactional handler: the refusal, and proof that nothing of it was written. */
async function refused(
  limit: TransactionLimit,
  writes: (tx: DynamoDBTransaction, id: string) => void,
): Promise<TransactionLimitExceeded> {
  const key = freshKey();
  const error = await guard
    .run(key, async ({ transaction }) => {
      writes(transaction!, key.externalId);
      return 'never';
    })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(TransactionLimitExceeded);
  expect(error).toMatchObject({ limit, code: 'ERR_IDEMPOTENCY_TRANSACTION_REFUSED' });
  expect(await exists(orders, key.externalId)).toBe(false);
  expect(await exists(orders, `${key.externalId}-0`)).toBe(false);
  expect(await store.find(key, { now: Date.now() })).toMatchObject({ status: 'failed' });
  return error as TransactionLimitExceeded;
}

describe('the limits of TransactWriteItems', () => {
  it('99 writes of the handler’s commit with the receipt; the 100th is refused where it is added', async () => {
    const key = freshKey();
    await guard.run(key, async ({ transaction }) => {
      for (let i = 0; i < 99; i++) put(transaction!, `${key.externalId}-${i}`);
      return 'ok';
    });
    expect(await exists(orders, `${key.externalId}-98`)).toBe(true);
    const error = await refused('items', (tx, id) => {
      for (let i = 0; i < 100; i++) put(tx, `${id}-${i}`);
    });
    expect(error.message).toMatch(/at most 99 items of its own/);
  });

  it('an item over 400 KB', async () => {
    const error = await refused('item-size', (tx, id) =>
      put(tx, id, { blob: 'x'.repeat(401 * 1024) }),
    );
    expect(error.message).toMatch(/400 KB/);
  });

  it('more than 4 MB in all', async () => {
    const error = await refused('transaction-size', (tx, id) => {
      for (let i = 0; i < 11; i++) put(tx, `${id}-${i}`, { blob: 'x'.repeat(390 * 1024) });
    });
    expect(error.message).toMatch(/4 MB/);
  });

  it('two writes of one item, the one a Put (its key read with the key another write names)', async () => {
    await refused('one-write-per-item', (tx, id) => {
      tx.update({
        TableName: orders,
        Key: { id },
        UpdateExpression: 'SET paid = :yes',
        ExpressionAttributeValues: { ':yes': true },
      });
      put(tx, id);
    });
  });

  it('a write of the receipt’s own item', async () => {
    const key = freshKey();
    const error = await guard
      .run(key, async ({ transaction }) => {
        transaction!.delete({
          TableName: receipts,
          Key: { id: `${key.provider}\u0000${key.externalId}` },
        });
        return 'never';
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'TransactionLimitExceeded', limit: 'one-write-per-item' });
    expect(await store.find(key, { now: Date.now() })).toMatchObject({ status: 'failed' });
  });

  it('two Puts of one item, which only DynamoDB can tell: its refusal is reported the same way', async () => {
    await refused('one-write-per-item', (tx, id) => {
      put(tx, `${id}-0`);
      put(tx, `${id}-0`, { again: true });
    });
  });

  it('a table of another region', async () => {
    const error = await refused('one-region', (tx, id) =>
      tx.put({
        TableName: `arn:aws:dynamodb:eu-west-1:123456789012:table/${orders}`,
        Item: { id },
      }),
    );
    expect(error.message).toMatch(/us-east-1/);
  });

  it('a response longer than a receipt holds: ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE, nothing written', async () => {
    const key = freshKey();
    const error = await guard
      .run(key, async ({ transaction }) => {
        put(transaction!, key.externalId);
        return 'x'.repeat(MAX_RESPONSE_BYTES);
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ cause: { code: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE' } });
    expect(await exists(orders, key.externalId)).toBe(false);
    expect(await store.find(key, { now: Date.now() })).toMatchObject({ status: 'failed' });
  });
});
