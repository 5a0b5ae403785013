/**
 * @module The writes that end a lease, as the inbox worker and the outbox dispatcher both make
 * them on their tables ({@link LeaseWrites}): done, a failure (retried after a backoff, or dead),
 * dead, given back. Each write is fenced by the lease and told to the lease keeper first; a `false`
 * answer is a lease taken over (reported once: not when the keeper reported it already), and a
 * store failure is reported and leaves the lease to run out, for another lease to finish the job.
 * What each outcome is called in events is its owner's ({@link LeaseTold}).
 */
import { giveBackLease, type InboxLeaseStore } from './inbox-store';
import type { LeaseKeeper } from './lease-keeper';
import type { Delivery } from './types';
import { retryDelayMs } from './worker-options';

/** How an owner tells what the writes came to: its own events. */
export interface LeaseTold {
  /** The write found the lease taken over (and the keeper had not reported it). */
  lost(lease: Delivery): void;
  /** The store failed the write `operation`: the lease is left to run out. */
  storeError(operation: string, error: unknown, lease: Delivery): void;
  /** Buried, with `error` as its last error. */
  dead(lease: Delivery, error: string): void;
  /** Due again after `delayMs`, a failure counted, `error` as its last error. */
  retry(lease: Delivery, delayMs: number, error: string): void;
}

/** What the writes need of their owner. */
export interface LeaseWritesScope {
  /** The table: the inbox's, or the outbox's (the same rows). */
  readonly store: Pick<InboxLeaseStore, 'complete' | 'retry' | 'bury' | 'giveBack'>;
  /** The keeper renewing the leases: told of each write first, and asked what it reported lost. */
  readonly keeper?: Pick<LeaseKeeper<Delivery>, 'ending' | 'reportedLost'>;
  /** Failures after which a lease's row is dead. */
  readonly maxFailures: number;
  /** The retry schedule ({@link retryDelayMs}). */
  readonly backoff: Parameters<typeof retryDelayMs>[1];
}

/** The writes that end a lease; see the module's header. */
export class LeaseWrites {
  constructor(
    private readonly scope: LeaseWritesScope,
    private readonly told: LeaseTold,
  ) {}

  /** Marks `lease`'s row done; `false` when it did not (lost, or the store failed). */
  complete(lease: Delivery): Promise<boolean> {
    return this.end(lease, 'complete', () => this.scope.store.complete(lease));
  }

  /** Back to pending without a failure counted, due after `delayMs`; `false` when it did not. */
  giveBack(lease: Delivery, delayMs: number): Promise<boolean> {
    return this.end(lease, 'giveBack', () => giveBackLease(this.scope.store, lease, { delayMs }));
  }

  /** Dead with `error` as its last error, told as {@link LeaseTold.dead}. */
  async bury(lease: Delivery, error: string): Promise<void> {
    if (await this.end(lease, 'bury', () => this.scope.store.bury(lease, { error })))
      this.told.dead(lease, error);
  }

  /**
   * A failure (`error`): dead when `permanent` or the last one allowed (`maxFailures`), else due
   * again after the backoff for its count; told either way.
   */
  async failed(lease: Delivery, error: string, permanent: boolean): Promise<void> {
    const { store, maxFailures, backoff } = this.scope;
    const { told } = this;
    const failures = lease.failures + 1;
    if (permanent || failures >= maxFailures) return this.bury(lease, error);
    const delayMs = retryDelayMs(failures, backoff);
    if (await this.end(lease, 'retry', () => store.retry(lease, { delayMs, error })))
      told.retry(lease, delayMs, error);
  }

  /** A write that ends `lease`; `false` when it did not (lost, or the store failed). */
  private async end(
    lease: Delivery,
    operation: string,
    write: () => Promise<boolean>,
  ): Promise<boolean> {
    const { keeper } = this.scope;
    const { told } = this;
    keeper?.ending(lease);
    try {
      const ok = await write();
      if (!ok && !keeper?.reportedLost(lease)) told.lost(lease);
      return ok;
    } catch (error) {
      told.storeError(operation, error, lease);
      return false;
    }
  }
}

/**
 * The error of a row buried without running: leased again after as many failures as it may have,
 * the last one its `holder` (a worker, a dispatcher) that stopped holding it, every time.
 */
export const lapsedTooOften = (failures: number, holder: string): string =>
  `LeaseExpired: dead after ${failures} failures, the last one a ${holder} that stopped holding it`;
