/**
 * @module Committing a transactional run: the handler's writes and the receipt's fenced completion
 * in one `TransactWriteItems`, checked against its limits first. A cancellation is read per write:
 * the receipt's condition failed (the claim was taken over: `ClaimLost`), or one of the handler's
 * writes was refused (`TransactionCanceled`), or DynamoDB saw a conflicting write in flight
 * (`TransactionConflict`: sent again, a few times). An answer lost on the way back is settled by
 * reading the receipt: completed with this claim means the transaction was written.
 */
import { TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ClaimLost } from '@webhook-idempotency/core';
import { bounded, isException } from './client';
import { type CanceledWrite, TransactionCanceled, TransactionLimitExceeded } from './errors';
import { checkTransaction } from './limits';
import type { CarriedClaim, Collected } from './transaction';

/** Sends after a `TransactionConflict`, and the pause before each (doubled every time). */
const CONFLICT_RETRIES = 3;
const CONFLICT_PAUSE_MS = 20;

/** What the commit needs of the store. */
export interface CommitContext {
  readonly client: DynamoDBClient;
  readonly timeoutMs: number;
  /** The client's region. */
  region(): Promise<string>;
}

interface CancellationReasonLike {
  readonly Code?: string;
  readonly Message?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends what `collected` holds (nothing to send: resolves at once).
 * @throws {TransactionLimitExceeded} over a limit; nothing was sent.
 * @throws {ClaimLost} the receipt's fence failed; nothing was written.
 * @throws {TransactionCanceled} a write of the handler's was refused; nothing was written.
 * @throws the SDK's error, or `DynamoDBRequestTimeout`, when DynamoDB could not be reached.
 */
export async function commit(
  context: CommitContext,
  collected: Collected,
  signal?: AbortSignal,
): Promise<void> {
  const { receipt } = collected;
  const claim = receipt?.claim;
  const writes = receipt ? [...collected.writes, receipt.write] : [...collected.writes];
  if (writes.length === 0) return;
  checkTransaction(
    receipt ? [...collected.shapes, receipt.shape] : collected.shapes,
    await context.region(),
  );
  for (let retry = 0; ; retry++) {
    try {
      await bounded(
        'TransactWriteItems',
        context.timeoutMs,
        (abortSignal) =>
          // A new command each time: a new ClientRequestToken (the SDK's own retries keep theirs).
          context.client.send(new TransactWriteItemsCommand({ TransactItems: writes }), {
            abortSignal,
          }),
        signal,
      );
      return;
    } catch (error) {
      const again = await judge(error, collected.writes.length, claim, retry < CONFLICT_RETRIES);
      if (again === 'written') return;
      await sleep(CONFLICT_PAUSE_MS * 2 ** retry);
    }
  }
}

/**
 * What a failed send means: thrown (the typed error, or the SDK's), `'again'` after a conflict
 * worth another try, or `'written'` when the answer was lost but the receipt shows the commit.
 */
async function judge(
  error: unknown,
  handlerWrites: number,
  claim: CarriedClaim | undefined,
  mayRetry: boolean,
): Promise<'again' | 'written'> {
  if (isException(error, 'TransactionCanceledException')) {
    const reasons =
      (error as { CancellationReasons?: CancellationReasonLike[] }).CancellationReasons ?? [];
    if (claim && reasons[handlerWrites]?.Code === 'ConditionalCheckFailed')
      throw new ClaimLost(claim.key.provider, claim.key.externalId, claim.attempts);
    const refused: CanceledWrite[] = reasons
      .slice(0, handlerWrites)
      .map((reason, index) => ({ index, code: reason.Code ?? 'None', message: reason.Message }))
      .filter((write) => write.code !== 'None' && write.code !== 'TransactionConflict');
    if (refused.length > 0) throw new TransactionCanceled(refused, error);
    if (mayRetry && reasons.some((reason) => reason.Code === 'TransactionConflict')) return 'again';
    throw error;
  }
  if (isException(error, 'ValidationException')) throw refusedByValidation(error as Error);
  // No answer, or not a definite one: the transaction may have been written.
  if (claim && !isException(error, 'IdempotentParameterMismatchException')) {
    const written = await claim.committed().catch(() => false);
    if (written) return 'written';
  }
  throw error;
}

/**
 * DynamoDB's refusal of a transaction it found invalid: over a limit (as the error the store's own
 * check throws), or a write it cannot run.
 */
function refusedByValidation(error: Error): Error {
  const { message } = error;
  if (/multiple operations on one item/i.test(message))
    return new TransactionLimitExceeded('one-write-per-item', message);
  if (/item size/i.test(message)) return new TransactionLimitExceeded('item-size', message);
  if (/transaction.*size|size.*transaction|request size/i.test(message))
    return new TransactionLimitExceeded('transaction-size', message);
  if (/member must have length less than or equal to 100/i.test(message))
    return new TransactionLimitExceeded('items', message);
  // An expression of the handler's that DynamoDB cannot run: as deterministic as a failed condition.
  return new TransactionCanceled([], error);
}
