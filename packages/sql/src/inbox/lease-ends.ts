/**
 * @module The lease writes that leave a delivery unfinished or dead: back to `pending` (a failure
 * counted, or given back without one), kept leased longer, or buried. Each is one `UPDATE` fenced
 * by the lease, so a worker whose lease was taken over changes nothing.
 */
import type { DeliveryLease } from '@webhook-idempotency/core/inbox';
import { leasesOf } from '@webhook-idempotency/core/adapter';
import type { Executor } from '../connections/executor';
import { storableText } from '../receipts/rows';
import type { InboxQueries } from './queries';

/** What the lease writes run on. */
export interface LeaseWriter {
  readonly executor: Executor;
  readonly sql: InboxQueries;
}

/**
 * The leased delivery back to `pending`, due after `delayMs`: with `error`, a failure (recorded,
 * `failures` + 1); with `null`, given back without one. Whether the lease was still held.
 */
export async function pendingAgain(
  { executor, sql }: LeaseWriter,
  lease: DeliveryLease,
  delayMs: number,
  error: string | null,
): Promise<boolean> {
  const text = error === null ? null : storableText(error);
  const { affected } = await executor.query(sql.retry, [
    Math.max(0, Math.round(delayMs)),
    text,
    text === null ? 0 : 1,
    lease.id,
    leasesOf(lease),
  ]);
  return affected === 1;
}

/** One `UPDATE` for every lease, each row fenced by its own: how many were still held. */
export async function extendLeases(
  { executor, sql }: LeaseWriter,
  leases: readonly DeliveryLease[],
  leaseMs: number,
): Promise<number> {
  if (leases.length === 0) return 0;
  const { affected } = await executor.query(sql.extend(leases.length), [
    Math.max(0, Math.round(leaseMs)),
    ...leases.flatMap((lease) => [lease.id, leasesOf(lease)]),
  ]);
  return affected;
}

/** The leased delivery `dead` with `error` (a failure counted). Whether the lease was still held. */
export async function buryLease(
  { executor, sql }: LeaseWriter,
  lease: DeliveryLease,
  error: string,
): Promise<boolean> {
  const { affected } = await executor.query(sql.bury, [
    storableText(error),
    lease.id,
    leasesOf(lease),
  ]);
  return affected === 1;
}
