/**
 * @module Marking leased deliveries done, on their own or inside a transaction of the receipts
 * store on the inbox's connection: one fenced `UPDATE` for one lease, one for many. And the
 * deprecated runner of the worker's groups (`batcherFor`), kept for one more minor version over
 * the Store contract's group operations.
 */
import type { Store } from '@webhook-idempotency/core';
import { type DeliveryBatcher, leasesOf } from '@webhook-idempotency/core/adapter';
import { type DeliveryLease, GroupConflict } from '@webhook-idempotency/core/inbox';
import type { Executor } from '../connections/executor';
import type { InboxQueries } from './queries';

/**
 * Marks each leased delivery done, in `transaction` when given; per lease, whether it was still
 * held. One statement for one lease, one for many (and, when a lease of many was lost, one read
 * of which are done now).
 */
export async function completeLeases(
  executor: Executor,
  sql: InboxQueries,
  leases: readonly DeliveryLease[],
  transaction: unknown,
): Promise<boolean[]> {
  if (leases.length === 0) return [];
  if (leases.length === 1) {
    const [lease] = leases as [DeliveryLease];
    const { affected } = await executor.query(
      sql.complete,
      [lease.id, leasesOf(lease)],
      transaction,
    );
    return [affected === 1];
  }
  const params = [
    ...leases.map((lease) => lease.id),
    ...leases.flatMap((lease) => [lease.id, leasesOf(lease)]),
  ];
  const { affected } = await executor.query(sql.completeMany(leases.length), params, transaction);
  if (affected === leases.length) return leases.map(() => true);
  // Some lease was taken over meanwhile: which ones are now done under this group's leases.
  const { rows } = await executor.query(sql.doneOf(leases.length), params, transaction);
  const done = new Set(rows.map((row) => Number(row.id)));
  return leases.map((lease) => done.has(lease.id));
}

/**
 * The deprecated runner of several first deliveries in one transaction of `store`: reads which
 * have a receipt, runs the handlers, records their receipts with the Store contract's
 * `recordFirst` (all or nothing), marks the deliveries done with `completeAll`, one commit. The
 * worker no longer uses it: its groups run through the guard (`IdempotencyGuard.group`).
 */
export function groupRunner(
  store: Store<unknown>,
  completeAll: (leases: readonly DeliveryLease[], transaction: unknown) => Promise<boolean[]>,
): DeliveryBatcher {
  return {
    run: (deliveries, work, options) =>
      store.withTransaction!(async (transaction) => {
        const at = { now: Date.now() };
        const known = await store.known!(deliveries, at, transaction);
        const entries = await work(
          transaction,
          new Set(deliveries.filter((_, i) => known[i]).map((d) => d.id)),
        );
        if (entries.length === 0) return [];
        const runs = entries.map(({ delivery, response, handlerMs }) => ({
          key: delivery,
          response,
          handlerMs,
        }));
        if (!(await store.recordFirst!(runs, at, transaction))) throw new GroupConflict();
        return completeAll(
          entries.map(({ delivery }) => delivery),
          transaction,
        );
      }, options),
  };
}
