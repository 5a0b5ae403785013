/**
 * The DynamoDB store: receipts in a DynamoDB table over the AWS SDK v3 client the application
 * already has, claims, take-overs and fenced writes as conditional requests timed by the caller's
 * clock, and transactional completion: the handler's writes and the receipt's completion in one
 * `TransactWriteItems` (docs/stores.md).
 * @module @webhook-idempotency/dynamodb
 */
export { DynamoDBStore } from './dynamodb-store';
export type { DynamoDBStoreOptions } from './options';
export { DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_TABLE } from './options';
export { type DynamoDBClientLike, DynamoDBRequestTimeout } from './client';
export {
  DynamoDBTransaction,
  type NativeItem,
  type TransactCondition,
  type TransactConditionCheck,
  type TransactDelete,
  type TransactPut,
  type TransactUpdate,
} from './transaction';
export {
  type CanceledWrite,
  TransactionCanceled,
  type TransactionLimit,
  TransactionLimitExceeded,
} from './errors';
export { MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS } from './limits';
export { MAX_RESPONSE_BYTES } from './receipt-size';
export { type ReceiptsTable, receiptsTable } from './table';
export { UnexpectedItem } from './item';
