/**
 * @module The worker's batches on SQL: several first deliveries' handlers in one transaction of a
 * `SqlStore` on the inbox's own connection, their receipts and their `done` written with one
 * statement each, one commit.
 */
import type { DeliveryBatcher } from '@webhook-idempotency/core/adapter';
import type { DeliveryLease } from '@webhook-idempotency/core/inbox';
import type { Executor } from './executor';
import type { InboxQueries } from './inbox-queries';
import { receiptKeyOf, type SqlStore } from './sql-store';

/** A batch's receipt was written by another run after the batch read it: the batch is rolled back. */
export class BatchConflict extends Error {
  constructor() {
    super('SqlInbox: a receipt of this batch was written meanwhile by another run');
    this.name = 'BatchConflict';
  }
}

/**
 * The batcher over `store`'s transactions: reads which deliveries have a receipt, runs the
 * handlers, writes the receipts, then `completeAll` marks the deliveries done, in one transaction.
 */
export function batcherOver(
  store: SqlStore,
  completeAll: (leases: readonly DeliveryLease[], transaction: unknown) => Promise<boolean[]>,
): DeliveryBatcher {
  return {
    run: (deliveries, work, options) =>
      store.withTransaction(async (transaction) => {
        const receipts = await store.knownIn(
          deliveries.map((d) => ({ provider: d.provider, externalId: d.externalId })),
          transaction,
        );
        const known = new Set(
          deliveries
            .filter((d) => receipts.has(receiptKeyOf(d.provider, d.externalId)))
            .map((d) => d.id),
        );
        const entries = await work(transaction, known);
        if (entries.length === 0) return [];
        const recorded = await store.recordIn(
          entries.map(({ delivery, response, handlerMs }) => ({
            key: { provider: delivery.provider, externalId: delivery.externalId },
            response,
            handlerMs,
          })),
          transaction,
        );
        // Another run wrote one of these receipts since they were read: roll everything back
        // and let each delivery run on its own, where the receipt decides.
        if (!recorded) throw new BatchConflict();
        return completeAll(
          entries.map(({ delivery }) => delivery),
          transaction,
        );
      }, options),
  };
}

/** Marks each leased delivery done in `transaction`; per lease, whether it was still held. */
export async function completeAllIn(
  executor: Executor,
  sql: InboxQueries,
  leases: readonly DeliveryLease[],
  transaction: unknown,
): Promise<boolean[]> {
  const params = [
    ...leases.map((lease) => lease.id),
    ...leases.flatMap((lease) => [lease.id, lease.attempts]),
  ];
  const { affected } = await executor.query(sql.completeMany(leases.length), params, transaction);
  if (affected === leases.length) return leases.map(() => true);
  // Some lease was taken over meanwhile: which ones are now done under this batch's leases.
  const { rows } = await executor.query(sql.doneOf(leases.length), params, transaction);
  const done = new Set(rows.map((row) => Number(row.id)));
  return leases.map((lease) => done.has(lease.id));
}
