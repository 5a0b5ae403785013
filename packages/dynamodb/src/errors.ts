/**
 * @module The store's refusals of a transactional completion, each a deterministic answer that a
 * retry would get again: more than one `TransactWriteItems` takes (refused before anything is
 * sent), or a condition of the handler's own writes that failed as DynamoDB ran them. Nothing of
 * the transaction was written either way, and the guard marks the receipt `failed`.
 */
import { ErrorCode, IdempotencyError } from '@webhook-idempotency/core';

/** Which limit of `TransactWriteItems` a transaction would pass. */
export type TransactionLimit =
  /** At most 100 writes, the receipt's completion one of them. */
  | 'items'
  /** At most 4 MB of items in all. */
  | 'transaction-size'
  /** At most 400 KB per item. */
  | 'item-size'
  /** At most one write per item. */
  | 'one-write-per-item'
  /** Every table in one account and one region, the client's. */
  | 'one-region';

/**
 * A transaction the store will not send, because DynamoDB would refuse it: `limit` names which of
 * its limits, the message the numbers. Thrown where it is found: to the handler when it adds the
 * write that passes the limit, or when the run commits (the receipt's completion included).
 * `ERR_IDEMPOTENCY_TRANSACTION_REFUSED` (500): the handler's writes must be split or shrunk; a
 * retry would be refused again.
 */
export class TransactionLimitExceeded extends IdempotencyError {
  readonly limit: TransactionLimit;
  constructor(limit: TransactionLimit, problem: string) {
    super(
      ErrorCode.TRANSACTION_REFUSED,
      `DynamoDB transaction refused before sending (${limit}): ${problem}`,
    );
    this.name = 'TransactionLimitExceeded';
    this.limit = limit;
  }
}

/** Why DynamoDB canceled one write of the handler's (its position among them, from 0). */
export interface CanceledWrite {
  readonly index: number;
  /** DynamoDB's cancellation code: `ConditionalCheckFailed`, `ValidationError`, … */
  readonly code: string;
  readonly message: string | undefined;
}

/**
 * DynamoDB canceled the transaction because of the handler's own writes (a condition of theirs
 * failed, or DynamoDB found one invalid): nothing was written, the receipt's completion neither.
 * `writes` lists the ones DynamoDB named (empty when it refused the request as a whole, its
 * message then in this one's). `ERR_IDEMPOTENCY_TRANSACTION_REFUSED` (500), a failure
 * of the run like the handler's own error: the next delivery runs the handler again.
 */
export class TransactionCanceled extends IdempotencyError {
  readonly writes: readonly CanceledWrite[];
  constructor(writes: readonly CanceledWrite[], cause: unknown) {
    const named = writes.map((write) => `write ${write.index}: ${write.code}`).join(', ');
    const why =
      writes.length > 0
        ? `because of the handler's writes (${named})`
        : `as invalid (${cause instanceof Error ? cause.message : String(cause)})`;
    super(
      ErrorCode.TRANSACTION_REFUSED,
      `DynamoDB canceled the transaction ${why}; nothing was written`,
      { cause },
    );
    this.name = 'TransactionCanceled';
    this.writes = writes;
  }
}
