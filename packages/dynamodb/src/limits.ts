/**
 * @module The limits of one `TransactWriteItems`, checked before it is sent: 100 writes, 4 MB of
 * items, 400 KB per item, one write per item, one account and region. Sizes are counted as
 * DynamoDB documents them (names and values in UTF-8 bytes, numbers by their digits, 3 bytes per
 * list or map and 1 per element): exactly for a Put, and for an Update or a Delete what the
 * request carries (its key and values; the item it leaves behind is DynamoDB's to judge, and its
 * refusal is reported with the same error).
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { TransactionLimitExceeded } from './errors';
import type { Item } from './item';

/** Writes in one `TransactWriteItems`. */
export const MAX_TRANSACTION_ITEMS = 100;
/** Bytes of items in one `TransactWriteItems`. */
export const MAX_TRANSACTION_BYTES = 4 * 1024 * 1024;
/** Bytes of one item. */
export const MAX_ITEM_BYTES = 400 * 1024;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A number's size: about one byte per two significant digits, plus one. */
function numberBytes(text: string): number {
  const digits = text
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '').length;
  return Math.ceil(Math.max(1, significant) / 2) + 1;
}

/** The size of one attribute value, as DynamoDB counts it. */
export function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberBytes(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + valueBytes(v), 0);
  if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  return 1; // NULL, BOOL
}

/** The size of an item (or of a set of named values): names and values. */
export function itemBytes(item: Item): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += utf8(name) + valueBytes(value);
  return bytes;
}

/** The table and the item's bytes a write counts for, and its key when the request names it. */
export interface WriteShape {
  readonly table: string;
  readonly key: Item | undefined;
  /** A Put's whole item: its key is found there once the table's key attributes are known. */
  readonly item: Item | undefined;
  readonly bytes: number;
}

/** What one write of a transaction is, for the checks. */
export function shapeOf(write: TransactWriteItem): WriteShape {
  const part = write.Put ?? write.Update ?? write.Delete ?? write.ConditionCheck;
  if (!part?.TableName)
    throw new TypeError(
      'a transaction write is one of Put, Update, Delete or ConditionCheck, with a TableName',
    );
  const values = part.ExpressionAttributeValues ?? {};
  if (write.Put)
    return {
      table: write.Put.TableName!,
      key: undefined,
      item: write.Put.Item,
      bytes: itemBytes(write.Put.Item ?? {}),
    };
  const key = (part as { Key?: Item }).Key;
  return {
    table: part.TableName,
    key,
    item: undefined,
    bytes: itemBytes(key ?? {}) + itemBytes(values),
  };
}

/** The region and account of a table ARN, or `undefined` for a plain table name. */
function arnParts(table: string): { region: string; account: string } | undefined {
  const match = /^arn:[a-z-]+:dynamodb:([a-z0-9-]+):(\d{12}):table\//.exec(table);
  return match ? { region: match[1]!, account: match[2]! } : undefined;
}

/** A key as text that two requests naming the same item share (attribute names sorted). */
function keyText(table: string, key: Item): string {
  const names = Object.keys(key).sort();
  return JSON.stringify([table, names.map((name) => [name, key[name]])]);
}

/**
 * Checks the writes of one transaction against every limit, `region` being the client's.
 * @throws {TransactionLimitExceeded} naming the first limit passed.
 */
export function checkTransaction(shapes: readonly WriteShape[], region: string): void {
  if (shapes.length > MAX_TRANSACTION_ITEMS)
    throw new TransactionLimitExceeded(
      'items',
      `${shapes.length} writes; one TransactWriteItems takes at most ${MAX_TRANSACTION_ITEMS}, the receipt's completion included`,
    );
  let total = 0;
  for (const [index, shape] of shapes.entries()) {
    checkItemSize(shape.bytes, `write ${index} (${shape.table})`);
    total += shape.bytes;
  }
  if (total > MAX_TRANSACTION_BYTES)
    throw new TransactionLimitExceeded(
      'transaction-size',
      `${total} bytes of items; one TransactWriteItems takes at most ${MAX_TRANSACTION_BYTES} (4 MB)`,
    );
  checkOneRegion(shapes, region);
  checkOneWritePerItem(shapes);
}

/** @throws {TransactionLimitExceeded} when one item is over 400 KB. */
export function checkItemSize(bytes: number, what: string): void {
  if (bytes > MAX_ITEM_BYTES)
    throw new TransactionLimitExceeded(
      'item-size',
      `${what} is ${bytes} bytes; a DynamoDB item holds at most ${MAX_ITEM_BYTES} (400 KB)`,
    );
}

function checkOneRegion(shapes: readonly WriteShape[], region: string): void {
  let account: string | undefined;
  for (const { table } of shapes) {
    const arn = arnParts(table);
    if (!arn) continue;
    if (arn.region !== region || (account !== undefined && arn.account !== account))
      throw new TransactionLimitExceeded(
        'one-region',
        `${table} is not in the client's region ${region}${account === undefined ? '' : ` and account ${account}`}; one TransactWriteItems reaches one account in one region`,
      );
    account = arn.account;
  }
}

/**
 * Two writes naming the same item. A Put names no key of its own: its item's key is read with
 * the key attributes another write of the transaction names for the same table.
 */
function checkOneWritePerItem(shapes: readonly WriteShape[]): void {
  const keyNames = new Map<string, readonly string[]>();
  for (const { table, key } of shapes) if (key) keyNames.set(table, Object.keys(key));
  const seen = new Set<string>();
  for (const [index, { table, key, item }] of shapes.entries()) {
    const names = keyNames.get(table);
    const named = key ?? (item && names ? pick(item, names) : undefined);
    if (!named) continue;
    const text = keyText(table, named);
    if (seen.has(text))
      throw new TransactionLimitExceeded(
        'one-write-per-item',
        `write ${index} names an item of ${table} that an earlier write of the transaction names too; one TransactWriteItems writes each item once`,
      );
    seen.add(text);
  }
}

function pick(item: Item, names: readonly string[]): Item | undefined {
  const key: Item = {};
  for (const name of names) {
    const value = item[name];
    if (value === undefined) return undefined;
    key[name] = value;
  }
  return key;
}
