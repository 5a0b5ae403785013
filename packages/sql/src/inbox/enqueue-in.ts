/**
 * @module A delivery stored inside a transaction of the inbox's receipts store (`enqueueIn`): how
 * the outbox records a message in a handler's run. The key parts are checked as `enqueue` checks
 * them; the `INSERT` is the endpoint's own, run in that transaction, never in a group commit.
 */
import { ErrorCode, IdempotencyError, ConfigError, type Store } from '@webhook-idempotency/core';
import { checkKeyPart } from '@webhook-idempotency/core/adapter';
import type { NewDelivery } from '@webhook-idempotency/core/inbox';
import { type InboxWriter, insertOne } from './group-commit';

/**
 * Refuses a key column no dialect can store (a NUL, an unpaired surrogate, over 160 characters)
 * with `InvalidRequestKey` naming the field, before anything reaches the database.
 */
export function checkDeliveryKey(delivery: NewDelivery): void {
  checkKeyPart('provider', delivery.provider);
  checkKeyPart('externalId', delivery.externalId);
  if (delivery.orderingKey !== null) checkKeyPart('orderingKey', delivery.orderingKey);
}

/**
 * Stores `delivery` inside `transaction`, a transaction of `receipts`: `true` inserted, `false`
 * already there. The statement lets the unique index decide without ending the transaction:
 * `ON CONFLICT DO NOTHING` where the dialect has it; on MySQL/MariaDB the duplicate-key error,
 * which undoes that one statement and leaves the transaction open.
 * @throws {ConfigError} naming `receipts` when the inbox was built without its receipts store.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING` without a transaction.
 * @throws {InvalidRequestKey} for a key column no dialect can store.
 */
export async function enqueueInTransaction(
  writer: InboxWriter,
  receipts: Store<unknown> | undefined,
  delivery: NewDelivery,
  transaction: unknown,
): Promise<boolean> {
  if (receipts === undefined)
    throw new ConfigError(
      'receipts',
      'enqueueIn writes inside a transaction of the receipts store the inbox was built with, and this one has none: build it with new SqlInbox(db, { receipts: store }) (or use SqlOutbox, which requires it)',
    );
  if (transaction === undefined || transaction === null)
    throw new IdempotencyError(
      ErrorCode.OUTBOX_TRANSACTION_MISSING,
      "enqueueIn needs a transaction of the receipts store (a transactional handler's context.transaction); without one the row would commit on its own",
    );
  checkDeliveryKey(delivery);
  return insertOne(writer, delivery, transaction);
}
