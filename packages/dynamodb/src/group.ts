/**
 * @module The Store contract's group operations over DynamoDB: which keys have a receipt (strongly
 * consistent reads), and the `completed` receipts of a group of first runs, all or nothing: one
 * conditional `PutItem` for one entry, one `TransactWriteItems` of conditional puts for several,
 * or, in a run's transaction, puts added to it (sent with its commit).
 */
import {
  type DynamoDBClient,
  PutItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type { FirstRun } from '@webhook-idempotency/core/adapter';
import {
  type At,
  ErrorCode,
  IdempotencyError,
  type KeyLike,
  TransactionClosed,
} from '@webhook-idempotency/core';
import { randomBytes } from 'node:crypto';
import { bounded, isException } from './client';
import { TransactionLimitExceeded } from './errors';
import {
  expressed,
  type Item,
  KEY_ATTRIBUTE,
  keyOf,
  N,
  NULL,
  nowSeconds,
  receiptId,
  S,
} from './item';
import { MAX_TRANSACTION_ITEMS } from './limits';
import { MAX_RESPONSE_BYTES } from './receipt-size';
import type { Collected } from './transaction';

/** What the group operations need of the store. */
export interface GroupContext {
  readonly client: DynamoDBClient;
  readonly table: string;
  readonly timeoutMs: number;
  /** Milliseconds a finished receipt is kept (its TTL), or `undefined` for no TTL attribute. */
  readonly retentionMs: number | undefined;
  /** Takes turns for this store's group transactions ({@link groupTurns}). */
  readonly turns: <T>(work: () => Promise<T>) => Promise<T>;
}

/** How many of one store's group transactions are in flight at once. */
const GROUPS_IN_FLIGHT = 8;

/**
 * Turns for a store's group transactions: at most {@link GROUPS_IN_FLIGHT} in flight, the others
 * wait for one to end. Groups racing on one key conflict in DynamoDB (`TransactionConflict`) and
 * are sent again; a burst of them unbounded would become a storm of conflicts and resends.
 */
export function groupTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (inFlight >= GROUPS_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    else inFlight++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else inFlight--;
    }
  };
}

/** Sends after a `TransactionConflict`, and the pause before the first (doubled every time, jittered). */
const CONFLICT_RETRIES = 10;
const CONFLICT_PAUSE_MS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same condition as a claim's: the key has no receipt, or only an expired one. */
const FREE = 'attribute_not_exists(#id) OR #expiresAt <= :nowSeconds';

/** The conditional put of one recorded first run, as `TransactWriteItems` and `PutItem` take it. */
function recordPut(context: GroupContext, entry: FirstRun, now: number, token: string) {
  const { key, response, handlerMs } = entry;
  const ms = Number.isFinite(handlerMs) ? Math.max(0, Math.round(handlerMs)) : 0;
  if (Buffer.byteLength(response, 'utf8') > MAX_RESPONSE_BYTES)
    throw new IdempotencyError(
      ErrorCode.RESPONSE_TOO_LARGE,
      `DynamoDBStore: the response of ${key.provider}/${key.externalId} is larger than a receipt holds (${MAX_RESPONSE_BYTES} bytes)`,
    );
  const { retentionMs } = context;
  const Item: Item = {
    ...keyOf(key),
    provider: S(key.provider),
    externalId: S(key.externalId),
    status: S('completed'),
    attempts: N(1),
    claimedAt: N(now - ms),
    finishedAt: N(now),
    fingerprint: NULL,
    response: S(response),
    claimToken: S(token),
    ...(retentionMs === undefined ? {} : { expiresAt: N(Math.ceil((now + retentionMs) / 1000)) }),
  };
  return {
    TableName: context.table,
    Item,
    ConditionExpression: FREE,
    ...expressed([FREE], { ':nowSeconds': nowSeconds(now) }),
  };
}

/** The receipt ids the run's transaction puts already (receipts recorded in it, not yet sent). */
export function pendingIds(collected: Collected, table: string): Set<string> {
  const ids = new Set<string>();
  for (const write of collected.writes) {
    const id = write.Put?.TableName === table ? write.Put.Item?.[KEY_ATTRIBUTE]?.S : undefined;
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/** True when two entries name one key. */
const repeats = (entries: readonly FirstRun[]): boolean =>
  new Set(entries.map(({ key }) => receiptId(key))).size !== entries.length;

/**
 * Records `entries` without a transaction: `false` when a key has a receipt (nothing written). A
 * resent `PutItem` that was written finds its own token; the SDK resends a `TransactWriteItems`
 * with its idempotency token.
 */
export async function recordAlone(
  context: GroupContext,
  entries: readonly FirstRun[],
  { now }: At,
  known: (keys: readonly KeyLike[]) => Promise<boolean[]>,
): Promise<boolean> {
  if (entries.length === 0) return true;
  if (repeats(entries)) return false;
  tooMany(entries.length);
  const token = randomBytes(12).toString('base64url');
  const puts = entries.map((entry) => recordPut(context, entry, now, token));
  if (puts.length === 1) return putOne(context, puts[0]!, token);
  const TransactItems: TransactWriteItem[] = puts.map((Put) => ({ Put }));
  const keys = entries.map(({ key }) => key);
  return context.turns(() => sendGroup(context, TransactItems, keys, known));
}

/** The group's `TransactWriteItems`, sent again after a conflict while none of its keys has a receipt. */
async function sendGroup(
  context: GroupContext,
  TransactItems: TransactWriteItem[],
  keys: readonly KeyLike[],
  known: (keys: readonly KeyLike[]) => Promise<boolean[]>,
): Promise<boolean> {
  for (let retry = 0; ; retry++) {
    try {
      // A new command each time: a new ClientRequestToken (the SDK's own retries keep theirs).
      await bounded('recordFirst', context.timeoutMs, (abortSignal) =>
        context.client.send(new TransactWriteItemsCommand({ TransactItems }), { abortSignal }),
      );
      return true;
    } catch (error) {
      if (!isException(error, 'TransactionCanceledException')) throw error;
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (reasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
      // Another transaction held one of the items: once it is over, the condition decides.
      const conflict = reasons?.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflict || retry >= CONFLICT_RETRIES) throw error;
      await sleep(Math.min(CONFLICT_PAUSE_MS * 2 ** retry, 500) * (0.5 + Math.random()));
      // Only the conflicting keys are read again: one with a receipt now makes the call `false`.
      const held = keys.filter((_, i) => reasons?.[i]?.Code === 'TransactionConflict');
      if ((await known(held)).some(Boolean)) return false;
    }
  }
}

/** One conditional `PutItem`: `false` when the key has a receipt that is not this call's. */
async function putOne(
  context: GroupContext,
  put: ReturnType<typeof recordPut>,
  token: string,
): Promise<boolean> {
  try {
    await bounded('recordFirst', context.timeoutMs, (abortSignal) =>
      context.client.send(
        new PutItemCommand({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        { abortSignal },
      ),
    );
    return true;
  } catch (error) {
    if (!isException(error, 'ConditionalCheckFailedException')) throw error;
    return (error as { Item?: Item }).Item?.claimToken?.S === token;
  }
}

/**
 * Adds the puts of `entries` to the run's transaction, once none of their keys has a receipt now
 * (`known`: a consistent read) or a put in it already: `false` (nothing added) otherwise. The
 * puts carry the same condition, so a receipt written between this read and the commit cancels
 * the whole transaction.
 */
export async function recordInTransaction(
  context: GroupContext,
  collected: Collected,
  entries: readonly FirstRun[],
  at: At,
  known: (keys: readonly KeyLike[]) => Promise<boolean[]>,
): Promise<boolean> {
  if (collected.ended) throw new TransactionClosed(collected.ended);
  if (entries.length === 0) return true;
  if (repeats(entries)) return false;
  const pending = pendingIds(collected, context.table);
  if (entries.some(({ key }) => pending.has(receiptId(key)))) return false;
  if ((await known(entries.map(({ key }) => key))).some(Boolean)) return false;
  if (collected.ended) throw new TransactionClosed(collected.ended);
  // The commit's receipt completion takes one of the hundred: all of them fit, or none is added.
  tooMany(collected.writes.length + entries.length + 1);
  const token = randomBytes(12).toString('base64url');
  const puts = entries.map((entry) => recordPut(context, entry, at.now, token));
  for (const Put of puts) collected.add({ Put });
  return true;
}

/** @throws {TransactionLimitExceeded} over the hundred writes of one `TransactWriteItems`. */
function tooMany(count: number): void {
  if (count > MAX_TRANSACTION_ITEMS)
    throw new TransactionLimitExceeded(
      'items',
      `a group records at most ${MAX_TRANSACTION_ITEMS} receipts in one TransactWriteItems, with what its transaction writes`,
    );
}
