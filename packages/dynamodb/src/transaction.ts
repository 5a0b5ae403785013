/**
 * @module The handle a transactional run's handler writes through: it collects the handler's
 * writes, and the receipt's completion joins them, so that one `TransactWriteItems` sends them
 * all when the run commits (DynamoDB has no interactive transaction to write into meanwhile).
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { type KeyLike, TransactionClosed } from '@webhook-idempotency/core';
import { marshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { TransactionLimitExceeded } from './errors';
import {
  checkItemSize,
  MAX_TRANSACTION_BYTES,
  MAX_TRANSACTION_ITEMS,
  shapeOf,
  type WriteShape,
} from './limits';

/** An item, a key or expression values in plain JavaScript values, as the document client takes them. */
export type NativeItem = Record<string, NativeAttributeValue>;

/** What every write may add: a condition, and the names and values its expressions use. */
export interface TransactCondition {
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: NativeItem;
  readonly ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE';
}

/** A `Put`: the whole item, replacing any with its key. */
export interface TransactPut extends TransactCondition {
  readonly TableName: string;
  readonly Item: NativeItem;
}

/** An `Update` of the item with `Key`. */
export interface TransactUpdate extends TransactCondition {
  readonly TableName: string;
  readonly Key: NativeItem;
  readonly UpdateExpression: string;
}

/** A `Delete` of the item with `Key`. */
export interface TransactDelete extends TransactCondition {
  readonly TableName: string;
  readonly Key: NativeItem;
}

/** A `ConditionCheck`: the transaction commits only if the item with `Key` meets the condition. */
export interface TransactConditionCheck extends TransactCondition {
  readonly TableName: string;
  readonly Key: NativeItem;
  readonly ConditionExpression: string;
}

/** How a transaction ended, once it has. */
type Ended = 'committed' | 'rolled back' | 'timed out';

/** The claim whose completion the transaction carries. */
export interface CarriedClaim {
  readonly key: KeyLike;
  readonly attempts: number;
  /** Reads the receipt: `true` when it is completed by this claim (the transaction was written). */
  committed(): Promise<boolean>;
}

/** The receipt's completion, as `complete` adds it, and the claim it is fenced by. */
export interface ReceiptWrite {
  readonly write: TransactWriteItem;
  readonly shape: WriteShape;
  readonly claim: CarriedClaim;
}

/** What the store reads of a handle: its writes, and the receipt's completion once added. */
export class Collected {
  readonly writes: TransactWriteItem[] = [];
  readonly shapes: WriteShape[] = [];
  bytes = 0;
  receipt: ReceiptWrite | undefined;
  ended: Ended | undefined;

  /** Adds one of the handler's writes, refusing it when the handle is closed or a limit is passed. */
  add(write: TransactWriteItem): void {
    if (this.ended) throw new TransactionClosed(this.ended);
    const shape = shapeOf(write);
    // The receipt's completion takes one of the hundred.
    if (this.writes.length + 1 >= MAX_TRANSACTION_ITEMS)
      throw new TransactionLimitExceeded(
        'items',
        `a transactional run writes at most ${MAX_TRANSACTION_ITEMS - 1} items of its own: the receipt's completion takes the ${MAX_TRANSACTION_ITEMS}th of one TransactWriteItems`,
      );
    checkItemSize(shape.bytes, `write ${this.writes.length} (${shape.table})`);
    if (this.bytes + shape.bytes > MAX_TRANSACTION_BYTES)
      throw new TransactionLimitExceeded(
        'transaction-size',
        `${this.bytes + shape.bytes} bytes of items with write ${this.writes.length}; one TransactWriteItems takes at most ${MAX_TRANSACTION_BYTES} (4 MB)`,
      );
    this.writes.push(write);
    this.shapes.push(shape);
    this.bytes += shape.bytes;
  }

  /** Ends the handle: every later call is refused. */
  end(how: Ended): void {
    this.ended ??= how;
  }
}

const collected = new WeakMap<DynamoDBTransaction, Collected>();

/** @internal The writes a handle collected (for the store). */
export function collectedBy(transaction: DynamoDBTransaction): Collected {
  const found = collected.get(transaction);
  if (!found)
    throw new TypeError('not a transaction of DynamoDBStore: pass the handle the run was given');
  return found;
}

/** Plain values in attribute-value form, as the document client marshals them. */
const toItem = (values: NativeItem): Record<string, AttributeValue> => marshall(values);

/** The parts every write shares, with the values in attribute-value form. */
function conditionOf(input: TransactCondition): Omit<
  TransactCondition,
  'ExpressionAttributeValues'
> & {
  ExpressionAttributeValues?: Record<string, AttributeValue>;
} {
  const { ExpressionAttributeValues: values, ...rest } = input;
  return values === undefined ? rest : { ...rest, ExpressionAttributeValues: toItem(values) };
}

/** The table, key and condition of a write addressed by `Key` (update, delete, condition check). */
function keyedWrite(input: TransactDelete) {
  const { Key, ...rest } = input;
  return { ...conditionOf(rest), TableName: input.TableName, Key: toItem(Key) };
}

/**
 * The open transaction of a transactional run over `DynamoDBStore` (`context.transaction`, or
 * `requireTransaction(req.idempotency, store)` over HTTP). Each call adds one write; nothing is
 * sent until the run commits, when the writes and the receipt's completion go in one
 * `TransactWriteItems`: all of them are written, or none. So the handler cannot read its own
 * writes back, and a condition of one is judged as the run commits (a failed one cancels the whole
 * transaction: `TransactionCanceled`).
 *
 * Values are plain JavaScript values, marshalled as the document client does; {@link
 * DynamoDBTransaction.write} takes a write in DynamoDB's attribute-value form as it is. At most 99
 * writes (the receipt's completion is the 100th), 4 MB in all, 400 KB per item, one write per item,
 * tables of one account and region: a write past a limit throws {@link TransactionLimitExceeded}.
 * Once the run has ended, every call throws `TransactionClosed`.
 *
 * @example
 * await guard.run(key, async ({ transaction }) => {
 *   transaction!.update({
 *     TableName: 'orders',
 *     Key: { id: orderId },
 *     UpdateExpression: 'SET paid = :yes',
 *     ExpressionAttributeValues: { ':yes': true },
 *   });
 *   return { received: true };
 * });
 */
export class DynamoDBTransaction {
  /** @internal Made by the store for each run. */
  constructor() {
    collected.set(this, new Collected());
  }

  /** How many writes the handler added so far. */
  get length(): number {
    return collectedBy(this).writes.length;
  }

  /** Adds a `Put`. */
  put(input: TransactPut): this {
    const { Item, ...rest } = input;
    return this.write({
      Put: { ...conditionOf(rest), TableName: input.TableName, Item: toItem(Item) },
    });
  }

  /** Adds an `Update`. */
  update(input: TransactUpdate): this {
    return this.write({
      Update: { ...keyedWrite(input), UpdateExpression: input.UpdateExpression },
    });
  }

  /** Adds a `Delete`. */
  delete(input: TransactDelete): this {
    return this.write({ Delete: keyedWrite(input) });
  }

  /** Adds a `ConditionCheck`. */
  conditionCheck(input: TransactConditionCheck): this {
    return this.write({
      ConditionCheck: { ...keyedWrite(input), ConditionExpression: input.ConditionExpression },
    });
  }

  /** Adds one write in DynamoDB's attribute-value form, as `TransactWriteItems` takes it. */
  write(item: TransactWriteItem): this {
    collectedBy(this).add(item);
    return this;
  }
}
