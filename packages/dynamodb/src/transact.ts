/**
 * @module A transactional run over DynamoDB: the work collects its writes on a fresh
 * {@link DynamoDBTransaction}, and only when it resolves are they sent, with the receipt's
 * completion, in one `TransactWriteItems` (DynamoDB has no interactive transaction to hold open).
 * When the work rejects, or the guard's signal aborts (the handler deadline), nothing is sent and
 * the handle refuses every later call.
 */
import type { TransactionOptions } from '@webhook-idempotency/core';
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
    value = await untilAborted(() => work(transaction), signal);
  } catch (error) {
    collected.end(signal?.aborted ? 'timed out' : 'rolled back');
    throw error;
  }
  collected.end('committed');
  await commit(context, collected, signal);
  return value;
}

/** `work()`, or its rejection with `signal`'s reason as soon as `signal` aborts. */
function untilAborted<T>(work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work();
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work().then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
