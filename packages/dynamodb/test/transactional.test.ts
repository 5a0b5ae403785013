/**
 * Transactional completion on Amazon's DynamoDB Local: the handler's own writes and the receipt's
 * completion commit together in one TransactWriteItems, or neither does: a handler that fails, a
 * claim taken over (before the completion reads its fence, or between that read and the commit),
 * a condition of the handler's own that fails, the handler deadline. Every assertion reads both
 * tables back from the server.
 */
import { type DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  ClaimLost,
  type GuardEvent,
  HandlerTimeout,
  IdempotencyGuard,
  RequestKey,
  TransactionClosed,
} from '@webhook-idempotency/core';
import { DynamoDBStore, type DynamoDBTransaction, TransactionCanceled } from '../src';
import { clientFor, createTable, dropTable, freshTable, serverUrl } from './helpers/dynamodb';

let client: DynamoDBClient;
let receipts: string;
let orders: string;
let store: DynamoDBStore;
let now: number;
const clock = () => now;

beforeAll(async () => {
  client = clientFor(serverUrl('local'));
  receipts = freshTable('tx-receipts');
  orders = freshTable('tx-orders');
  await Promise.all([createTable(client, receipts), createTable(client, orders)]);
  store = new DynamoDBStore(client, { table: receipts });
});
afterAll(async () => {
  await Promise.all([dropTable(client, receipts), dropTable(client, orders)]);
  client.destroy();
});
beforeEach(() => {
  now = Date.UTC(2026, 0, 1);
});

let counter = 0;
const freshKey = (label: string) => new RequestKey('stripe', `${label}-${Date.now()}-${counter++}`);

/** The order item as the server has it (`undefined`: never written). */
async function order(id: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: orders, Key: { id: { S: id } }, ConsistentRead: true }),
  );
  return Item ? { paid: Item.paid?.BOOL, charges: Number(Item.charges?.N) } : undefined;
}

/** The handler's business write: the order paid, and a counter of how many times it was applied. */
const markPaid = (transaction: DynamoDBTransaction | undefined, id: string) =>
  transaction!.update({
    TableName: orders,
    Key: { id },
    UpdateExpression: 'SET paid = :yes ADD charges :one',
    ExpressionAttributeValues: { ':yes': true, ':one': 1 },
  });

const guardOf = (options: { staleAfterSeconds?: number; handlerTimeoutSeconds?: number } = {}) => {
  const events: GuardEvent[] = [];
  const guard = new IdempotencyGuard(store, {
    transactional: true,
    clock,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { guard, events };
};

describe('transactional completion: the handler’s write and the receipt commit together', () => {
  it('commits both, once: a redelivery replays and writes nothing', async () => {
    const { guard } = guardOf();
    const key = freshKey('commit');
    const handle = async ({ transaction }: { transaction: DynamoDBTransaction | undefined }) => {
      markPaid(transaction, key.externalId);
      return { paid: true };
    };
    const first = await guard.run(key, handle);
    expect(first).toMatchObject({ isReplay: false, response: { paid: true } });
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
    expect(await store.find(key, { now })).toMatchObject({ status: 'completed', attempts: 1 });
    const again = await guard.run(key, handle);
    expect(again).toMatchObject({ isReplay: true, response: { paid: true } });
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
  });

  it('a handler that fails after adding its write sends nothing: no order, receipt failed, the retry commits once', async () => {
    const { guard } = guardOf();
    const key = freshKey('rollback');
    const boom = new Error('card declined downstream');
    await expect(
      guard.run(key, async ({ transaction }) => {
        markPaid(transaction, key.externalId);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await order(key.externalId)).toBeUndefined();
    expect(await store.find(key, { now })).toMatchObject({ status: 'failed', attempts: 1 });
    await guard.run(key, async ({ transaction }) => {
      markPaid(transaction, key.externalId);
      return 'ok';
    });
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
    expect(await store.find(key, { now })).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('a claim taken over while the handler ran: ClaimLost, nothing sent, the new owner’s write is the only one', async () => {
    const { guard, events } = guardOf({ staleAfterSeconds: 60 });
    const key = freshKey('taken-over');
    const run = guard.run(key, async ({ transaction }) => {
      markPaid(transaction, key.externalId);
      // Another worker takes the claim over meanwhile (stale by the shared clock) and books it.
      now += 61_000;
      await guardOf({ staleAfterSeconds: 60 }).guard.run(key, async (context) => {
        markPaid(context.transaction, key.externalId);
        return 'second';
      });
      return 'first';
    });
    await expect(run).rejects.toBeInstanceOf(ClaimLost);
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
    expect(await store.find(key, { now })).toMatchObject({
      status: 'completed',
      attempts: 2,
      response: '"second"',
    });
    expect(events.some((event) => event.type === 'claim-lost')).toBe(true);
  });

  it('a take-over between the fence read and the commit cancels the whole transaction (ClaimLost), the write with it', async () => {
    const key = freshKey('race');
    const claim = await store.claim(key, { now, fingerprint: null });
    const { attempts, claimedAt } = claim.receipt;
    const run = store.withTransaction!(async (transaction) => {
      markPaid(transaction, key.externalId);
      const joined = await store.complete(
        key,
        { now, attempts, claimedAt, response: '"x"' },
        transaction,
      );
      expect(joined).toBe(true);
      // The fence held when complete read it; the claim is taken over before the commit.
      expect(
        await store.reclaim(key, { now: now + 120_000, attempts, staleAfterMs: 60_000 }),
      ).not.toBeNull();
      return 'done';
    });
    await expect(run).rejects.toMatchObject({ name: 'ClaimLost', attempts: 1 });
    expect(await order(key.externalId)).toBeUndefined();
    expect(await store.find(key, { now })).toMatchObject({ status: 'processing', attempts: 2 });
  });

  it('through the guard, a take-over just before the commit: ClaimLost, a claim-lost event, nothing written', async () => {
    const key = freshKey('race-guard');
    // Another worker takes the claim over while this one's TransactWriteItems is on its way: after
    // the completion read its fence, before DynamoDB runs the transaction.
    const racing = clientFor(serverUrl('local'));
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          expect(
            await store.reclaim(key, { now: now + 120_000, attempts: 1, staleAfterMs: 60_000 }),
          ).not.toBeNull();
        return next(args);
      },
      { step: 'initialize', name: 'takeOverFirst' },
    );
    const events: GuardEvent[] = [];
    const guard = new IdempotencyGuard(new DynamoDBStore(racing, { table: receipts }), {
      transactional: true,
      clock,
      onEvent: (event) => events.push(event),
    });
    try {
      const run = guard.run(key, async ({ transaction }) => {
        markPaid(transaction, key.externalId);
        return 'first';
      });
      await expect(run).rejects.toBeInstanceOf(ClaimLost);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'claim-lost', operation: 'complete', attempts: 1 }),
      );
      expect(await order(key.externalId)).toBeUndefined();
      expect(await store.find(key, { now })).toMatchObject({ status: 'processing', attempts: 2 });
    } finally {
      racing.destroy();
    }
  });

  it('a condition of the handler’s own that fails cancels everything: TransactionCanceled names the write, the receipt is failed', async () => {
    const { guard } = guardOf();
    const key = freshKey('condition');
    const error = await guard
      .run(key, async ({ transaction }) => {
        markPaid(transaction, key.externalId);
        transaction!.conditionCheck({
          TableName: orders,
          Key: { id: `${key.externalId}-customer` },
          ConditionExpression: 'attribute_exists(id)',
        });
        return 'never';
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceled);
    expect(error).toMatchObject({
      code: 'ERR_IDEMPOTENCY_TRANSACTION_REFUSED',
      writes: [{ index: 1, code: 'ConditionalCheckFailed' }],
    });
    expect(await order(key.externalId)).toBeUndefined();
    expect(await store.find(key, { now })).toMatchObject({ status: 'failed' });
  });

  it('at the handler deadline nothing is sent, the receipt is failed, and a late write is refused', async () => {
    const { guard } = guardOf({ staleAfterSeconds: 60, handlerTimeoutSeconds: 0.3 });
    const key = freshKey('deadline');
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let late: unknown;
    const run = guard.run(key, async ({ transaction }) => {
      markPaid(transaction, key.externalId);
      await released;
      try {
        markPaid(transaction, `${key.externalId}-late`);
      } catch (error) {
        late = error;
      }
      return 'late';
    });
    await expect(run).rejects.toBeInstanceOf(HandlerTimeout);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late).toBeInstanceOf(TransactionClosed);
    expect(late).toMatchObject({ reason: 'timed out' });
    expect(await order(key.externalId)).toBeUndefined();
    expect(await store.find(key, { now })).toMatchObject({ status: 'failed' });
  });

  it('a transaction without the receipt’s completion sends the handler’s writes alone; an empty one sends nothing', async () => {
    const id = `plain-${counter++}`;
    await store.withTransaction!(async (transaction) => void markPaid(transaction, id));
    expect(await order(id)).toEqual({ paid: true, charges: 1 });
    await expect(store.withTransaction!(async () => 'nothing')).resolves.toBe('nothing');
  });

  it('a write in attribute-value form goes as it is', async () => {
    const { guard } = guardOf();
    const key = freshKey('raw');
    await guard.run(key, async ({ transaction }) => {
      transaction!.write({
        Put: {
          TableName: orders,
          Item: { id: { S: key.externalId }, paid: { BOOL: true }, charges: { N: '7' } },
        },
      });
      return 'ok';
    });
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 7 });
  });
});

describe('a commit whose answer is lost', () => {
  /** A client whose TransactWriteItems reaches the server, and whose answer then never arrives. */
  const losingAnswers = (resend: boolean) => {
    const lossy = clientFor(serverUrl('local'), { maxAttempts: 1 });
    lossy.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        const answer = await next(args);
        // Resent as the SDK's retry would resend it (same ClientRequestToken), or dropped.
        if (resend) return next(args);
        void answer;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
      { step: 'finalizeRequest', name: 'loseAnswer' },
    );
    return lossy;
  };

  it.each([
    ['dropped after DynamoDB wrote it: the receipt read back tells, the run succeeds', false],
    ['resent with its ClientRequestToken: DynamoDB answers the copy as the first', true],
  ])('%s; the write is applied once', async (_name, resend) => {
    const lossy = losingAnswers(resend);
    try {
      const guard = new IdempotencyGuard(new DynamoDBStore(lossy, { table: receipts }), {
        transactional: true,
        clock,
      });
      const key = freshKey('lost-answer');
      const outcome = await guard.run(key, async ({ transaction }) => {
        markPaid(transaction, key.externalId);
        return 'booked';
      });
      expect(outcome).toMatchObject({ isReplay: false, response: 'booked' });
      expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
      expect(await store.find(key, { now })).toMatchObject({ status: 'completed', attempts: 1 });
    } finally {
      lossy.destroy();
    }
  });
});

describe('the guard without transactional mode', () => {
  it('writes the receipt with one conditional update (no transaction needed)', async () => {
    const guard = new IdempotencyGuard(store, { clock });
    const key = freshKey('plain');
    await guard.run(key, async ({ transaction }) => {
      expect(transaction).toBeUndefined();
      await client.send(
        new UpdateItemCommand({
          TableName: orders,
          Key: { id: { S: key.externalId } },
          UpdateExpression: 'SET paid = :yes ADD charges :one',
          ExpressionAttributeValues: { ':yes': { BOOL: true }, ':one': { N: '1' } },
        }),
      );
      return 'ok';
    });
    expect(await order(key.externalId)).toEqual({ paid: true, charges: 1 });
    expect(await store.find(key, { now })).toMatchObject({ status: 'completed' });
  });
});
