/** @module The options of {@link DynamoDBStore}, checked and resolved once. */
import { ConfigError, SECOND } from '@webhook-idempotency/core';

/** Options of `DynamoDBStore`. */
export interface DynamoDBStoreOptions {
  /**
   * The receipts table (default `'webhook_receipts'`): a table name, or a table ARN. Its key is
   * one string attribute `id` (`receiptsTable(name)` gives the `CreateTable` input). Give each
   * application or environment its own table.
   */
  readonly table?: string;
  /**
   * Finished (`completed` and `failed`) receipts get a TTL attribute `expiresAt` this many
   * seconds after they finished; enable TTL on `expiresAt` and DynamoDB deletes them itself, at
   * no cost (lazily: an expired receipt may stay readable for a while, and the store treats it as
   * absent from the moment it expires). A `processing` receipt never expires. A duplicate that
   * arrives after its receipt expired runs the handler again: keep receipts at least as long as
   * the provider redelivers (docs/providers.md). Default (and `Infinity`): no TTL attribute;
   * delete old receipts with `guard.purge()`, which scans the table.
   */
  readonly retentionSeconds?: number;
  /**
   * The longest any store call waits for DynamoDB, in milliseconds, the SDK's own retries
   * included (default 5,000): past it the request is aborted and the guard answers a store
   * failure (503) instead of hanging. Bound the client too (`maxAttempts`, and the request
   * handler's `connectionTimeout` and `requestTimeout`: docs/stores.md).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Transactional completion (default `true`): the guard's `transactional` mode sends the
   * handler's writes and the receipt's completion in one `TransactWriteItems`. `false` for a
   * DynamoDB-compatible server without `TransactWriteItems` (dynalite, for one): the store then
   * has no `withTransaction` and `capabilities.transactional` is `false`.
   */
  readonly transactions?: boolean;
}

/** {@link DynamoDBStoreOptions} resolved. */
export interface ResolvedDynamoDBOptions {
  readonly table: string;
  /** Milliseconds a finished receipt is kept, or `undefined` for no TTL attribute. */
  readonly retentionMs: number | undefined;
  readonly requestTimeoutMs: number;
  readonly transactions: boolean;
}

/** Default of {@link DynamoDBStoreOptions.table}. */
export const DEFAULT_TABLE = 'webhook_receipts';
/** Default of {@link DynamoDBStoreOptions.requestTimeoutMs}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** A table name as DynamoDB takes it (3 to 255 of `[A-Za-z0-9_.-]`), or a table ARN. */
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const TABLE_ARN = /^arn:[a-z-]+:dynamodb:[a-z0-9-]+:\d{12}:table\/[A-Za-z0-9_.-]{3,255}$/;

const positive = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Checks and resolves the options.
 * @throws {ConfigError} naming the option that is wrong.
 */
export function resolveDynamoDBOptions(
  options: DynamoDBStoreOptions = {},
): ResolvedDynamoDBOptions {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', `must be an object, got ${String(options)}`);
  const {
    table = DEFAULT_TABLE,
    retentionSeconds,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    transactions = true,
  } = options;
  if (typeof table !== 'string' || !(TABLE_NAME.test(table) || TABLE_ARN.test(table)))
    throw new ConfigError(
      'table',
      `must be a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -) or a table ARN, got ${JSON.stringify(table)}`,
    );
  const expires = retentionSeconds !== undefined && retentionSeconds !== Number.POSITIVE_INFINITY;
  if (expires && !(positive(retentionSeconds) && retentionSeconds >= 1))
    throw new ConfigError(
      'retentionSeconds',
      `must be a number of seconds of at least 1 (DynamoDB's TTL counts whole seconds) or Infinity, got ${String(retentionSeconds)}`,
    );
  if (!positive(requestTimeoutMs))
    throw new ConfigError(
      'requestTimeoutMs',
      `must be a positive number of milliseconds, got ${String(requestTimeoutMs)}`,
    );
  if (typeof transactions !== 'boolean')
    throw new ConfigError('transactions', `must be a boolean, got ${String(transactions)}`);
  return {
    table,
    retentionMs: expires ? Math.round(retentionSeconds * SECOND) : undefined,
    requestTimeoutMs,
    transactions,
  };
}
