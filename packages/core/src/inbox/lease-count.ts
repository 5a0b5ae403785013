/**
 * @module A delivery's lease count under its name, `leases`, and for one minor version under its
 * deprecated name `attempts` (a receipt's word for its handler starts): read from what a caller,
 * a queue job or a store written before the rename gives, and written under both names.
 */
import type { GivenLeaseCount, LeaseCount } from './types';

/**
 * The lease count `given` carries: its `leases`, else its deprecated `attempts` (a lease, an
 * expected state or a delivery from code written before the rename). `NaN` when it has neither,
 * which fences nothing: no stored delivery has that lease.
 */
export function leasesOf(given: GivenLeaseCount | LeaseCount): number {
  return given.leases ?? given.attempts ?? Number.NaN;
}

/** `n` under both names, as every delivery, reference and event carries it for one minor version. */
export const leaseCount = (n: number): LeaseCount => ({ leases: n, attempts: n });

/**
 * `delivery` with its lease count under both names: as it is when it has them, else completed from
 * the one it has (an inbox store written before the rename returns `attempts` alone).
 */
export function withLeases<T extends Partial<LeaseCount>>(delivery: T): T & LeaseCount {
  if (delivery.leases !== undefined && delivery.attempts === delivery.leases)
    return delivery as T & LeaseCount;
  return { ...delivery, ...leaseCount(leasesOf(delivery as GivenLeaseCount)) };
}
