/** @module DynamoDBStore: the Store contract over DynamoDB, one conditional request per operation. */
import { randomBytes } from 'node:crypto';
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type * as core from '@webhook-idempotency/core';
import { type FirstRun, type PurgeInput, purgeChunkSize } from '@webhook-idempotency/core/adapter';
import { bounded, type DynamoDBClientLike, isException, senderFor } from './client';
import type { CommitContext } from './commit';
import {
  type GroupContext,
  groupTurns,
  pendingIds,
  recordAlone,
  recordInTransaction,
} from './group';
import { type Item, keyOf, expired, receiptId, toReceipt, UnexpectedItem } from './item';
import {
  type DynamoDBStoreOptions,
  type ResolvedDynamoDBOptions,
  resolveDynamoDBOptions,
} from './options';
import { purgeReceipts } from './purge';
import { fits, joinTransaction, MAX_RESPONSE_BYTES, refuseOversized } from './receipt-size';
import { runTransaction } from './transact';
import { collectedBy, type DynamoDBTransaction } from './transaction';
import { alreadySettled, claimPut, reclaimUpdate, type Settlement, settleUpdate } from './writes';

/** NUL and lone surrogates: replaced as the SQL stores replace them, so every store keeps the same text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is matched on purpose, to be replaced before storing.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A fresh token per call: a claim was won, or a settlement written, when the receipt carries it. */
const nonce = (): string => randomBytes(12).toString('base64url');

/** How many times a claim meets a receipt that is gone when read (purged meanwhile) before it gives up. */
const CLAIM_ROUNDS = 3;

/** The transaction function of a store with transactions. */
type WithTransaction = <T>(
  work: (transaction: DynamoDBTransaction) => Promise<T>,
  options?: core.TransactionOptions,
) => Promise<T>;

/**
 * Receipts in a DynamoDB table: one item per delivery, every operation one conditional request,
 * so that DynamoDB, not your code, decides which delivery runs the handler, across every Lambda,
 * container and machine that reaches the table. DynamoDB has no clock a condition can read: the
 * store times claims by the caller's clock (`capabilities.clock: 'caller'`, the guard's), so keep
 * the app servers' clocks in sync (docs/stores.md says what skew does).
 *
 * **Transactional completion** (`transactional: true` on the guard or the adapter): the handler
 * adds its writes to `context.transaction` (a {@link DynamoDBTransaction}), and they are sent with
 * the receipt's fenced completion in one `TransactWriteItems`: both are written, or neither.
 *
 * `client` is the client the application already has (a `DynamoDBClient`, or a
 * `DynamoDBDocumentClient` made from one); the store never configures or destroys it. Create the
 * table with `receiptsTable(name)`.
 *
 * @example
 * const client = new DynamoDBClient({ maxAttempts: 3 });
 * const guard = new IdempotencyGuard(new DynamoDBStore(client, { table: 'webhook_receipts', retentionSeconds: 7 * 86_400 }));
 * @see packages/dynamodb/README.md
 */
export class DynamoDBStore implements core.Store<DynamoDBTransaction> {
  /** Shared by processes and machines, timed by the caller's clock; transactional unless `transactions: false`. */
  readonly capabilities: core.StoreCapabilities;
  /** The receipts table (a name or an ARN). */
  readonly table: string;
  /**
   * Runs `work` with a {@link DynamoDBTransaction} and, when it resolves, sends what it collected
   * and the receipt's completion in one `TransactWriteItems`; when it rejects (or `signal` aborts),
   * sends nothing. Absent with `transactions: false`.
   */
  readonly withTransaction?: WithTransaction;
  /**
   * Which of `keys` have a live receipt (consistent reads; in `transaction`, its own count too).
   * Absent with `transactions: false`: no group without `TransactWriteItems` (`capabilities.groups`).
   */
  readonly known?: (
    keys: readonly core.KeyLike[],
    at: core.At,
    transaction?: DynamoDBTransaction,
  ) => Promise<boolean[]>;
  /**
   * A group's `completed` receipts, all or nothing: one `PutItem`, or one `TransactWriteItems` of
   * conditional puts (group.ts); in `transaction`, sent with its commit. Absent as `known` is.
   */
  readonly recordFirst?: (
    entries: readonly FirstRun[],
    at: core.At,
    transaction?: DynamoDBTransaction,
  ) => Promise<boolean>;
  private readonly client: DynamoDBClient;
  private readonly options: ResolvedDynamoDBOptions;
  private region: Promise<string> | undefined;

  /**
   * @throws {ConfigError} naming `client` when it is no DynamoDB client of the AWS SDK v3, or the
   * option that is wrong.
   */
  constructor(client: DynamoDBClientLike, options: DynamoDBStoreOptions = {}) {
    this.options = resolveDynamoDBOptions(options);
    this.client = senderFor(client);
    this.table = this.options.table;
    const { transactions } = this.options;
    this.capabilities = {
      crossProcess: true,
      transactional: transactions,
      clock: 'caller',
      maxResponseBytes: MAX_RESPONSE_BYTES,
      groups: transactions,
      ignoredCounts: false, // ignored events: OpenTelemetry and guard events only, no table yet
    };
    if (transactions) {
      const group: GroupContext = {
        client: this.client,
        table: this.table,
        timeoutMs: this.options.requestTimeoutMs,
        retentionMs: this.options.retentionMs,
        turns: groupTurns(),
      };
      this.known = (keys, at, transaction) => this.knownKeys(keys, at, transaction);
      this.recordFirst = (entries, at, transaction) =>
        transaction === undefined
          ? recordAlone(group, entries, at, (keys) => this.knownKeys(keys, at))
          : recordInTransaction(group, collectedBy(transaction), entries, at, (keys) =>
              this.knownKeys(keys, at),
            );
      const context: CommitContext = {
        client: this.client,
        timeoutMs: this.options.requestTimeoutMs,
        region: () => (this.region ??= this.client.config.region()),
      };
      this.withTransaction = (work, options) => runTransaction(context, work, options);
    }
  }

  /**
   * One conditional `PutItem` that creates the `processing` receipt unless the key has one, and
   * answers the receipt there when it has (`ReturnValuesOnConditionCheckFailure`; a server that
   * does not return it, such as dynalite, costs a strongly consistent `GetItem` more). An expired
   * receipt (TTL passed, not yet deleted) counts as none: the claim replaces it.
   */
  async claim(
    key: core.KeyLike,
    { now, fingerprint }: core.At & { readonly fingerprint: string | null },
  ): Promise<core.ClaimResult> {
    const put = claimPut(key, now, fingerprint, nonce());
    const token = put.Item.claimToken!.S;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      let existing: Item | undefined;
      try {
        await this.send('claim', (abortSignal) =>
          this.client.send(
            new PutItemCommand({
              TableName: this.table,
              ...put,
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
            { abortSignal },
          ),
        );
        return { won: true, receipt: toReceipt(key, put.Item, now) };
      } catch (error) {
        if (!isException(error, 'ConditionalCheckFailedException')) throw error;
        existing = (error as { Item?: Item }).Item ?? (await this.read('claim', key));
      }
      // Gone since (a purge): claim again. Carrying this call's token: resent by the SDK, and won.
      if (!existing) continue;
      const receipt = toReceipt(key, existing, now);
      return { won: existing.claimToken?.S === token, receipt } as core.ClaimResult;
    }
    throw new UnexpectedItem(key, `the receipt changed under ${CLAIM_ROUNDS} claims in a row`);
  }

  /** One conditional `UpdateItem`, fenced by `attempts`; staleness judged by the caller's clock. */
  async reclaim(
    key: core.KeyLike,
    input: core.At & {
      readonly attempts: number;
      readonly staleAfterMs: number;
      readonly fingerprint?: string | null;
    },
  ): Promise<core.ObservedReceipt | null> {
    const token = nonce();
    const update = reclaimUpdate(key, input, token);
    try {
      const { Attributes } = await this.send('reclaim', (abortSignal) =>
        this.client.send(
          new UpdateItemCommand({
            TableName: this.table,
            ...update,
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal },
        ),
      );
      return Attributes ? toReceipt(key, Attributes, input.now) : null;
    } catch (error) {
      if (!isException(error, 'ConditionalCheckFailedException')) throw error;
      // A resent request whose first copy took the receipt over finds its own token there.
      const item = (error as { Item?: Item }).Item;
      return item?.claimToken?.S === token ? toReceipt(key, item, input.now) : null;
    }
  }

  /**
   * One conditional `UpdateItem`, fenced by `attempts` and, when given, `claimedAt`; sets the TTL
   * attribute when `retentionSeconds` is given. With `transaction` (the run's
   * {@link DynamoDBTransaction}), the fence is checked now (a consistent read: `false` when the
   * claim was lost) and the completion joins the transaction, to be sent with the handler's writes.
   */
  complete(
    key: core.KeyLike,
    input: core.At & {
      readonly attempts: number;
      readonly claimedAt?: Date;
      readonly response: string;
    },
    transaction?: DynamoDBTransaction,
  ): Promise<boolean> {
    const settlement = this.settlement(input, 'completed', input.response);
    if (transaction === undefined) return this.settle('complete', key, settlement);
    return joinTransaction(collectedBy(transaction), {
      table: this.table,
      key,
      settlement,
      read: (now) => this.find(key, { now }),
    });
  }

  /**
   * One conditional `UpdateItem` fenced like {@link DynamoDBStore.complete}. The error text is
   * stored with U+FFFD in place of NUL and of lone surrogates, as the SQL stores store it.
   */
  fail(
    key: core.KeyLike,
    input: core.At & {
      readonly attempts: number;
      readonly claimedAt?: Date;
      readonly error: string;
    },
  ): Promise<boolean> {
    const text = input.error.replace(UNSTORABLE, '\uFFFD');
    return this.settle('fail', key, this.settlement(input, 'failed', text));
  }

  /** A strongly consistent `GetItem`; an expired receipt (TTL passed, not yet deleted) is none. */
  async find(key: core.KeyLike, { now }: core.At): Promise<core.ObservedReceipt | null> {
    const item = await this.read('find', key);
    return item && !expired(item, now) ? toReceipt(key, item, now) : null;
  }

  /**
   * Deletes finished receipts (of `provider`, when given) finished at least `olderThanMs` ago,
   * never a `processing` one: a Scan of the whole table, `chunkSize` items a page (default 1000),
   * and a conditional `DeleteItem` per receipt found. For routine retention, prefer
   * `retentionSeconds` with TTL enabled, which costs nothing.
   */
  async purge(input: PurgeInput): Promise<number> {
    const { now, olderThanMs, provider } = input;
    const timeoutMs = this.options.requestTimeoutMs;
    return purgeReceipts(this.client, {
      table: this.table,
      now,
      olderThanMs,
      chunkSize: purgeChunkSize(input),
      provider,
      timeoutMs,
    });
  }

  private settlement(
    input: core.At & { readonly attempts: number; readonly claimedAt?: Date },
    status: Settlement['status'],
    value: string,
  ): Settlement {
    const { now, attempts, claimedAt } = input;
    const { retentionMs } = this.options;
    return { now, attempts, claimedAt, status, value, retentionMs, token: nonce() };
  }

  /** A settlement on its own: `false` when the fence failed, unless a resent copy of it was written. */
  private async settle(
    operation: string,
    key: core.KeyLike,
    settlement: Settlement,
  ): Promise<boolean> {
    if (!fits(settlement))
      return refuseOversized(settlement, (failed) => this.settle('fail', key, failed));
    const update = settleUpdate(key, settlement);
    try {
      await this.send(operation, (abortSignal) =>
        this.client.send(
          new UpdateItemCommand({
            TableName: this.table,
            ...update,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal },
        ),
      );
      return true;
    } catch (error) {
      if (!isException(error, 'ConditionalCheckFailedException')) throw error;
      return alreadySettled((error as { Item?: Item }).Item, settlement);
    }
  }

  /** Consistent reads of `keys`; with `transaction`, the receipts it records count as known. */
  private async knownKeys(
    keys: readonly core.KeyLike[],
    { now }: core.At,
    transaction?: DynamoDBTransaction,
  ): Promise<boolean[]> {
    const pending = transaction && pendingIds(collectedBy(transaction), this.table);
    return Promise.all(
      keys.map(async (key) => {
        if (pending?.has(receiptId(key))) return true;
        const item = await this.read('known', key);
        return item !== undefined && !expired(item, now);
      }),
    );
  }

  /** The receipt's item as it is, by a strongly consistent `GetItem`. */
  private async read(operation: string, key: core.KeyLike): Promise<Item | undefined> {
    const { Item } = await this.send(operation, (abortSignal) =>
      this.client.send(
        new GetItemCommand({ TableName: this.table, Key: keyOf(key), ConsistentRead: true }),
        { abortSignal },
      ),
    );
    return Item;
  }

  /** One request, bounded by `requestTimeoutMs`. */
  private send<T>(operation: string, work: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return bounded(operation, this.options.requestTimeoutMs, work);
  }
}
