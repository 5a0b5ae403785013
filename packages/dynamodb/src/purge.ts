/**
 * @module `purge()`: finished receipts deleted by a Scan of the table, one page of `chunkSize` at a
 * time, each found receipt deleted on the condition that it is still finished and old enough (a
 * receipt taken over meanwhile is kept). It reads the whole table: for retention at no cost, set
 * `retentionSeconds` and enable TTL instead; `purge` is for the operator and the contract, never on
 * the request path.
 */
import { DeleteItemCommand, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { bounded, isException } from './client';
import { expressed, type Item, N, S } from './item';

/** Deletes running side by side within one page. */
const DELETES_AT_ONCE = 8;

/** What a purge is asked for. */
export interface PurgeRequest {
  readonly table: string;
  readonly now: number;
  readonly olderThanMs: number;
  readonly chunkSize: number;
  readonly provider?: string | undefined;
  readonly timeoutMs: number;
}

/** Deletes finished receipts finished at least `olderThanMs` before `now`; resolves with how many. */
export async function purgeReceipts(
  client: DynamoDBClient,
  request: PurgeRequest,
): Promise<number> {
  const { table, now, olderThanMs, chunkSize, provider, timeoutMs } = request;
  const filter = `#status IN (:completed, :failed) AND #finishedAt <= :cutoff${provider === undefined ? '' : ' AND #provider = :provider'}`;
  const values: Item = {
    ':completed': S('completed'),
    ':failed': S('failed'),
    ':cutoff': N(now - Math.max(0, olderThanMs)),
    ...(provider === undefined ? {} : { ':provider': S(provider) }),
  };
  const projection = '#id';
  let deleted = 0;
  let start: Item | undefined;
  do {
    const page = await bounded('purge (Scan)', timeoutMs, (abortSignal) =>
      client.send(
        new ScanCommand({
          TableName: table,
          Limit: chunkSize,
          ConsistentRead: true,
          ProjectionExpression: projection,
          FilterExpression: filter,
          ExclusiveStartKey: start,
          ...expressed([projection, filter], values),
        }),
        { abortSignal },
      ),
    );
    const keys = (page.Items ?? []).map((item) => ({ id: item.id! }));
    for (let at = 0; at < keys.length; at += DELETES_AT_ONCE) {
      const done = await Promise.all(
        keys
          .slice(at, at + DELETES_AT_ONCE)
          .map((Key) => deleteIfStillOld(client, { table, Key, filter, values, timeoutMs })),
      );
      deleted += done.filter(Boolean).length;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return deleted;
}

/** One conditional delete: `false` when the receipt changed since the scan found it. */
async function deleteIfStillOld(
  client: DynamoDBClient,
  request: { table: string; Key: Item; filter: string; values: Item; timeoutMs: number },
): Promise<boolean> {
  const { table, Key, filter, values, timeoutMs } = request;
  try {
    await bounded('purge (DeleteItem)', timeoutMs, (abortSignal) =>
      client.send(
        new DeleteItemCommand({
          TableName: table,
          Key,
          ConditionExpression: filter,
          ...expressed([filter], values),
        }),
        { abortSignal },
      ),
    );
    return true;
  } catch (error) {
    if (isException(error, 'ConditionalCheckFailedException')) return false;
    throw error;
  }
}
