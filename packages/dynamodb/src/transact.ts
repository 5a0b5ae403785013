/**
 * @module A transactional run over DynamoDB: the work collects its writes on a fresh
 * {@link DynamoDBTransaction}, and only when it resolves are they sent, with the receipt's
 * completion, in one `TransactWriteItems` (DynamoDB has no interactive transaction to hold open).
 * When the work rejects, or the guard's signal aborts (the handler deadline), nothing is sent and
 * the handle refuses every later call.
 */
import type { TransactionOptions } from '@webhook-idempotency/core';
import { raceAbort } from '@webhook-idempotency/core/adapter';
import { type CommitContext, commit } from './commit';
import { collectedBy, DynamoDBTransaction } from './transaction';

/** Runs `work`, then sends its writes and the receipt's completion in one transaction. */
export async function runTransaction<T>(
  context: CommitContext,
  work: (transaction: DynamoDBTransaction) => Promise<T>,
  { signal }: TransactionOptions = {},
): Promise<T> {
  const transaction = new DynamoDBTransaction();
  const collected = collectedBy(transaction);
  let value: T;
  try {
    // Ended before it began: the work never runs.
    if (signal?.aborted) throw signal.reason;
    value = await raceAbort(work(transaction), signal, (ended) => ended.reason);
  } catch (error) {
    collected.end(signal?.aborted ? 'timed out' : 'rolled back');
    throw error;
  }
  collected.end('committed');
  await commit(context, collected, signal);
  return value;
}
