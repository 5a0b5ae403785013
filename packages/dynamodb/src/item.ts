/**
 * @module A receipt as a DynamoDB item: its key, its attributes, the expressions that name them,
 * and reading one back. One item per delivery, keyed by one string attribute `id`.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { KeyLike, ObservedReceipt, ReceiptStatus } from '@webhook-idempotency/core';

/** The key attribute of the receipts table (a string: the partition key, no sort key). */
export const KEY_ATTRIBUTE = 'id';
/** The attribute the table's TTL reads: epoch seconds, set on finished receipts only. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** An item as the SDK reads and writes it. */
export type Item = Record<string, AttributeValue>;

/**
 * The receipt's `id`: provider and external id joined by NUL, which neither can contain (the
 * guard refuses it in a key), so two keys never share an id. `provider` and `externalId` are
 * stored beside it as attributes of their own.
 */
export const receiptId = (key: KeyLike): string => `${key.provider}\u0000${key.externalId}`;

/** The `Key` of the receipt of `key`. */
export const keyOf = (key: KeyLike): Item => ({ [KEY_ATTRIBUTE]: { S: receiptId(key) } });

export const S = (value: string): AttributeValue => ({ S: value });
export const N = (value: number): AttributeValue => ({ N: String(value) });
export const NULL: AttributeValue = { NULL: true };

/** The parts of a request that an expression uses: names (`#x` is the attribute `x`) and values. */
export interface Expressed {
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Item;
}

/**
 * Names and values for `expressions`: `#name` stands for the attribute `name`; of `values`, the
 * ones the expressions use (DynamoDB refuses a name or value that no expression uses).
 */
export function expressed(expressions: readonly (string | undefined)[], values: Item): Expressed {
  const text = expressions.filter((part) => part !== undefined).join(' ');
  const names: Record<string, string> = {};
  for (const [, name] of text.matchAll(/#(\w+)/g)) names[`#${name}`] = name!;
  const used: Item = {};
  for (const [placeholder] of text.matchAll(/:\w+/g)) {
    const value = values[placeholder];
    if (value) used[placeholder] = value;
  }
  return Object.keys(used).length > 0
    ? { ExpressionAttributeNames: names, ExpressionAttributeValues: used }
    : { ExpressionAttributeNames: names };
}

/** Not expired at `now`: no TTL attribute, or one still ahead (DynamoDB deletes expired items lazily). */
export const LIVE = '(attribute_not_exists(#expiresAt) OR #expiresAt > :nowSeconds)';

/** `now` as the TTL compares it: whole seconds. An item with `expiresAt <= nowSeconds` is gone. */
export const nowSeconds = (now: number): AttributeValue => N(Math.floor(now / 1000));

/** An item that is not a receipt the store wrote: another program writes the table. */
export class UnexpectedItem extends Error {
  constructor(key: KeyLike, what: string) {
    super(
      `DynamoDB holds an unexpected receipt for ${key.provider}/${key.externalId} (${what}); is another program writing the store's table?`,
    );
    this.name = 'UnexpectedItem';
  }
}

const STATUSES: ReadonlySet<string> = new Set(['processing', 'completed', 'failed']);

const text = (value: AttributeValue | undefined): string | null => value?.S ?? null;

function integer(key: KeyLike, item: Item, field: string): number {
  const n = Number(item[field]?.N);
  if (item[field]?.N === undefined || !Number.isSafeInteger(n))
    throw new UnexpectedItem(key, `${field} is ${JSON.stringify(item[field])}`);
  return n;
}

/** True when the item has expired by `now` (its TTL passed; DynamoDB has not deleted it yet). */
export function expired(item: Item, now: number): boolean {
  const seconds = item[TTL_ATTRIBUTE]?.N;
  return seconds !== undefined && Number(seconds) <= Math.floor(now / 1000);
}

/**
 * The receipt of `key` in `item`, its claim's age judged by the caller's `now`.
 * @throws {UnexpectedItem} when the item is not a receipt.
 */
export function toReceipt(key: KeyLike, item: Item, now: number): ObservedReceipt {
  const status = item.status?.S;
  if (status === undefined || !STATUSES.has(status))
    throw new UnexpectedItem(key, `status ${JSON.stringify(item.status)}`);
  const claimedAt = integer(key, item, 'claimedAt');
  return {
    provider: key.provider,
    externalId: key.externalId,
    status: status as ReceiptStatus,
    response: text(item.response),
    attempts: integer(key, item, 'attempts'),
    error: text(item.error),
    fingerprint: text(item.fingerprint),
    claimedAt: new Date(claimedAt),
    finishedAt: item.finishedAt ? new Date(integer(key, item, 'finishedAt')) : null,
    claimAgeMs: now - claimedAt,
  };
}
