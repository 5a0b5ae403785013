/**
 * @module The receipt's settlement against the limits of a DynamoDB item (400 KB: a stored
 * response must fit), and the completion joining a transactional run, its fence checked by a
 * consistent read before the handler's writes are sent with it.
 */
import {
  ErrorCode,
  IdempotencyError,
  type KeyLike,
  type ObservedReceipt,
  TransactionClosed,
} from '@webhook-idempotency/core';
import { keyOf, receiptId } from './item';
import type { Collected } from './transaction';
import { type Settlement, settleUpdate } from './writes';

/** Bytes every receipt holds beside its key, its parts and its response or error: names, numbers, fingerprint, token. */
const RECEIPT_OVERHEAD_BYTES = 512;

/**
 * The longest response a receipt holds (UTF-8 bytes): a DynamoDB item's 400 KB, less room for the
 * longest key (twice, as `id` and as its parts) and every other attribute.
 */
export const MAX_RESPONSE_BYTES = 396 * 1024;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The size of the receipt once `settlement` is written (a little over, never under). */
export function receiptBytes(key: KeyLike, settlement: Settlement): number {
  return (
    utf8(receiptId(key)) +
    utf8(key.provider) +
    utf8(key.externalId) +
    utf8(settlement.value) +
    RECEIPT_OVERHEAD_BYTES
  );
}

/** `false` for a completion whose response is longer than {@link MAX_RESPONSE_BYTES}. */
export const fits = (settlement: Settlement): boolean =>
  settlement.status !== 'completed' || utf8(settlement.value) <= MAX_RESPONSE_BYTES;

/** `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` for `settlement`'s response. */
function tooLarge(settlement: Settlement): IdempotencyError {
  return new IdempotencyError(
    ErrorCode.RESPONSE_TOO_LARGE,
    `DynamoDBStore: the response is ${utf8(settlement.value)} bytes; a receipt holds at most ${MAX_RESPONSE_BYTES} (a DynamoDB item, 400 KB, holds the receipt). Answer with a smaller body, or lower the adapter's maxResponseBytes`,
  );
}

/**
 * A response too large for the receipt: the receipt is marked `failed` (so the next delivery runs
 * at once, not after `staleAfterSeconds`), then this throws `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE`.
 */
export async function refuseOversized(
  settlement: Settlement,
  fail: (settlement: Settlement) => Promise<boolean>,
): Promise<never> {
  const error = tooLarge(settlement);
  await fail({ ...settlement, status: 'failed', value: error.message }).catch(() => undefined);
  throw error;
}

/** What a completion joining a transaction needs of the store. */
export interface Joining {
  readonly table: string;
  readonly key: KeyLike;
  readonly settlement: Settlement;
  /** A strongly consistent read of the receipt. */
  read(now: number): Promise<ObservedReceipt | null>;
}

/** True when `receipt` is `processing` under the claim `settlement` is fenced by, or `status` under it. */
function heldBy(receipt: ObservedReceipt | null, settlement: Settlement, status: string): boolean {
  return (
    receipt !== null &&
    receipt.status === status &&
    receipt.attempts === settlement.attempts &&
    (settlement.claimedAt === undefined ||
      receipt.claimedAt.getTime() === settlement.claimedAt.getTime())
  );
}

/**
 * Adds the completion to the run's transaction, once its fence holds now: `false` (nothing added)
 * when the claim was already taken over. The fence is sent with it as the update's condition too,
 * so a take-over between this read and the commit cancels the whole transaction (`ClaimLost`).
 * @throws {TransactionClosed} when the run's transaction has ended.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` over {@link MAX_RESPONSE_BYTES}.
 */
export async function joinTransaction(collected: Collected, joining: Joining): Promise<boolean> {
  const { table, key, settlement, read } = joining;
  if (collected.ended) throw new TransactionClosed(collected.ended);
  // The guard marks the receipt failed on this error (the transaction sends nothing).
  if (!fits(settlement)) throw tooLarge(settlement);
  if (collected.receipt)
    throw new IdempotencyError(
      ErrorCode.CONFIG,
      `A transaction carries one completion; ${key.provider}/${key.externalId} was completed in it already`,
    );
  if (!heldBy(await read(settlement.now), settlement, 'processing')) return false;
  // The read took time: the run may have ended meanwhile.
  if (collected.ended) throw new TransactionClosed(collected.ended);
  const update = settleUpdate(key, settlement);
  collected.receipt = {
    write: { Update: { TableName: table, ...update } },
    shape: { table, key: keyOf(key), item: undefined, bytes: receiptBytes(key, settlement) },
    claim: {
      key,
      attempts: settlement.attempts,
      committed: async () => heldBy(await read(settlement.now), settlement, 'completed'),
    },
  };
  return true;
}
