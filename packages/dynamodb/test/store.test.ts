/**
 * DynamoDBStore beyond the contract, on the run's servers: the item it writes, the TTL attribute
 * and an expired receipt DynamoDB has not deleted yet, a request the SDK sends twice (its answer
 * lost), and the options and clients it refuses.
 */
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { ConfigError } from '@webhook-idempotency/core';
import { DynamoDBStore, receiptsTable } from '../src';
import {
  clientFor,
  createTable,
  dropTable,
  freshTable,
  type Server,
  serverUrl,
} from './helpers/dynamodb';

const T0 = Date.UTC(2026, 0, 1);
let counter = 0;
const freshKey = () => ({ provider: 'github', externalId: `store-${Date.now()}-${counter++}` });

describe.each<Server>(['dynalite', 'local'])('DynamoDBStore on %s', (server) => {
  let client: DynamoDBClient;
  let table: string;
  beforeAll(async () => {
    client = clientFor(serverUrl(server));
    table = freshTable('store');
    await createTable(client, table);
  });
  afterAll(async () => {
    await dropTable(client, table);
    client.destroy();
  });

  const raw = async (key: { provider: string; externalId: string }) =>
    (
      await client.send(
        new GetItemCommand({
          TableName: table,
          Key: { id: { S: `${key.provider}\u0000${key.externalId}` } },
          ConsistentRead: true,
        }),
      )
    ).Item;

  it('writes one item keyed by provider NUL external id, with the parts beside it', async () => {
    const store = new DynamoDBStore(client, { table, transactions: false });
    const key = freshKey();
    await store.claim(key, { now: T0, fingerprint: 'sha-1' });
    expect(await raw(key)).toMatchObject({
      provider: { S: 'github' },
      externalId: { S: key.externalId },
      status: { S: 'processing' },
      attempts: { N: '1' },
      claimedAt: { N: String(T0) },
      fingerprint: { S: 'sha-1' },
    });
    expect((await raw(key))?.expiresAt).toBeUndefined();
  });

  it('retentionSeconds: a finished receipt gets expiresAt (epoch seconds) for the TTL; a take-over removes it', async () => {
    const store = new DynamoDBStore(client, { table, retentionSeconds: 3600, transactions: false });
    const key = freshKey();
    await store.claim(key, { now: T0, fingerprint: null });
    expect(await store.fail(key, { now: T0 + 500, attempts: 1, error: 'boom' })).toBe(true);
    expect((await raw(key))?.expiresAt).toEqual({ N: String(Math.ceil((T0 + 500) / 1000) + 3600) });
    expect(
      await store.reclaim(key, { now: T0 + 1000, attempts: 1, staleAfterMs: 1000 }),
    ).not.toBeNull();
    expect((await raw(key))?.expiresAt).toBeUndefined();
    const plain = new DynamoDBStore(client, { table, transactions: false });
    expect(await plain.complete(key, { now: T0 + 2000, attempts: 2, response: '1' })).toBe(true);
    expect((await raw(key))?.expiresAt).toBeUndefined();
  });

  it('an expired receipt that DynamoDB has not deleted yet is none: find answers null, a claim starts afresh, no take-over', async () => {
    const store = new DynamoDBStore(client, { table, retentionSeconds: 60, transactions: false });
    const key = freshKey();
    await store.claim(key, { now: T0, fingerprint: 'old' });
    await store.complete(key, { now: T0, attempts: 1, response: '"old"' });
    const later = T0 + 60_000;
    expect(await store.find(key, { now: later - 1 })).toMatchObject({ status: 'completed' });
    expect(await store.find(key, { now: later })).toBeNull();
    expect(await store.reclaim(key, { now: later, attempts: 1, staleAfterMs: 0 })).toBeNull();
    expect(await raw(key)).toBeDefined();
    const claim = await store.claim(key, { now: later, fingerprint: 'new' });
    expect(claim).toMatchObject({
      won: true,
      receipt: { status: 'processing', attempts: 1, fingerprint: 'new', response: null },
    });
    expect((await raw(key))?.expiresAt).toBeUndefined();
    expect((await store.claim(key, { now: later, fingerprint: 'new' })).won).toBe(false);
  });

  it('a request the SDK sends twice (the first answer lost) answers as the first copy did', async () => {
    const twice = clientFor(serverUrl(server));
    // What the SDK's retry does after a lost answer: the same request reaches the server again.
    twice.middlewareStack.add(
      (next) => async (args) => {
        await next(args);
        return next(args);
      },
      { step: 'finalizeRequest', name: 'sendTwice' },
    );
    const store = new DynamoDBStore(twice, { table, transactions: false });
    const key = freshKey();
    try {
      const claim = await store.claim(key, { now: T0, fingerprint: null });
      expect(claim).toMatchObject({ won: true, receipt: { attempts: 1 } });
      const failed = await store.fail(key, {
        now: T0,
        attempts: 1,
        claimedAt: claim.receipt.claimedAt,
        error: 'x',
      });
      // dynalite does not answer ReturnValuesOnConditionCheckFailure: a resent settlement is
      // reported refused there (the guard then reports a lost claim), written on DynamoDB.
      expect(failed).toBe(server === 'local');
      expect(await store.find(key, { now: T0 })).toMatchObject({ status: 'failed', error: 'x' });
      const taken = await store.reclaim(key, { now: T0 + 1, attempts: 1, staleAfterMs: 0 });
      // Likewise a resent take-over is reported lost on dynalite (safe: nobody runs it; the claim
      // goes stale and the next delivery takes it over), taken on DynamoDB.
      if (server === 'local') expect(taken).toMatchObject({ attempts: 2 });
      else expect(taken).toBeNull();
      expect(await store.find(key, { now: T0 + 1 })).toMatchObject({
        status: 'processing',
        attempts: 2,
      });
      const done = await store.complete(key, { now: T0 + 2, attempts: 2, response: '"ok"' });
      expect(done).toBe(server === 'local');
      expect(await store.find(key, { now: T0 + 2 })).toMatchObject({
        status: 'completed',
        response: '"ok"',
      });
    } finally {
      twice.destroy();
    }
  });

  it('an item another program wrote is reported, never taken for a receipt', async () => {
    const store = new DynamoDBStore(client, { table, transactions: false });
    const key = freshKey();
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { id: { S: `${key.provider}\u0000${key.externalId}` } },
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: 'shipped' } },
      }),
    );
    await expect(store.find(key, { now: T0 })).rejects.toMatchObject({ name: 'UnexpectedItem' });
    await expect(store.claim(key, { now: T0, fingerprint: null })).rejects.toMatchObject({
      name: 'UnexpectedItem',
    });
  });
});

describe('DynamoDBStore options and clients', () => {
  const client = new DynamoDBClient({ region: 'us-east-1' });
  afterAll(() => client.destroy());

  it.each([
    ['table', { table: 'x' }],
    ['table', { table: 'has space' }],
    ['table', { table: 'arn:aws:s3:::bucket' }],
    ['retentionSeconds', { retentionSeconds: 0.5 }],
    ['retentionSeconds', { retentionSeconds: -1 }],
    ['requestTimeoutMs', { requestTimeoutMs: 0 }],
    ['requestTimeoutMs', { requestTimeoutMs: Number.NaN }],
    ['transactions', { transactions: 'yes' }],
  ])('refuses a wrong %s: %j', (option, options) => {
    const make = () => new DynamoDBStore(client, options as never);
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(expect.objectContaining({ option }));
  });

  it.each([null, {}, { send: () => undefined }, 'http://localhost:8000'])(
    'refuses what is no DynamoDB client: %j',
    (value) => {
      expect(() => new DynamoDBStore(value as never)).toThrow(
        expect.objectContaining({ option: 'client' }),
      );
    },
  );

  it('takes a table ARN, and declares what it can do', () => {
    const arn = 'arn:aws:dynamodb:us-east-1:123456789012:table/webhook_receipts';
    const store = new DynamoDBStore(client, { table: arn });
    expect(store.table).toBe(arn);
    expect(store.capabilities).toEqual({
      crossProcess: true,
      transactional: true,
      clock: 'caller',
      maxResponseBytes: 396 * 1024,
      groups: true,
      ignoredCounts: false,
    });
    expect(typeof store.withTransaction).toBe('function');
    expect(typeof store.known).toBe('function');
    expect(typeof store.recordFirst).toBe('function');
    const without = new DynamoDBStore(client, { transactions: false });
    expect(without.table).toBe('webhook_receipts');
    expect(without.capabilities.transactional).toBe(false);
    expect(without.withTransaction).toBeUndefined();
    // Several receipts all or nothing need TransactWriteItems too: no group operations.
    expect(without.capabilities.groups).toBe(false);
    expect(without.known).toBeUndefined();
    expect(without.recordFirst).toBeUndefined();
  });

  it('receiptsTable gives the CreateTable and UpdateTimeToLive inputs the store reads', () => {
    expect(receiptsTable('t1')).toEqual({
      create: {
        TableName: 't1',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      },
      timeToLive: {
        TableName: 't1',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      },
    });
  });
});
