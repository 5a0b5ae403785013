/**
 * @module Lease renewal, as a part of its own: a {@link LeaseKeeper} keeps the leases its owner
 * tracks from running out while their work is under way, and reports the ones it finds taken over.
 *
 * - **Track, untrack.** The owner tracks a lease when it takes the delivery (a lease call) and untracks
 *   it when its part is over. Just before it writes the lease's end itself (finish, retry, give
 *   back, bury), it says so ({@link LeaseKeeper.ending}): the lease is still renewed until it is
 *   untracked, but a renewal that no longer finds it held is no loss.
 * - **One timer for all.** While anything is tracked, one interval renews every tracked lease in
 *   one store call, `renewalsPerLease` times per lease (every third of it by default), so a lease is
 *   renewed well before it could expire, however many are tracked; with nothing tracked there is
 *   no timer, and the timer never keeps the process alive on its own.
 * - **Lost leases.** A lease renewal extends only the leases still held. When it extended fewer
 *   than it was given, and more than its owner was ending meanwhile, each lease still tracked (and
 *   not ending) is asked about on its own; one that is not held any more was taken over by another
 *   worker: it is reported ({@link LeaseKeeperContext.leaseLost}) and no longer renewed. Only its
 *   owner ends a lease it holds, after saying so, so the report is never a lease its owner ended
 *   meanwhile; a loss the keeper cannot be sure of is left to the owner's next write, fenced by the
 *   lease, to find. The keeper remembers what it reported ({@link LeaseKeeper.reportedLost}) until
 *   the owner untracks it, so that the owner's own write that finds the same loss says nothing.
 * - **A failed renewal** is reported ({@link LeaseKeeperContext.renewalFailed}); the next interval
 *   tries again, and a lease that runs out meanwhile is fenced by its lease number everywhere.
 *
 * What it needs of its owner is the minimal {@link LeaseKeeperContext}: the store's `extend`, and
 * where its reports go.
 */
import type { DeliveryLease } from './types';
import { leasesOf } from './lease-count';

/** What a {@link LeaseKeeper} needs of its owner. */
export interface LeaseKeeperContext<L extends DeliveryLease> {
  /** Extends `leases` by `leaseMs` from now; resolves with how many were still held (`InboxStore.extend`). */
  extend(leases: readonly L[], leaseMs: number): Promise<number>;
  /** A renewal failed in the store: the leases may run out before the next one. */
  renewalFailed(error: unknown): void;
  /** `lease` was found taken over (not held any more, and not ended by its owner): no longer renewed. */
  leaseLost(lease: L): void;
}

/** How a {@link LeaseKeeper} renews. */
export interface LeaseKeeperOptions {
  /** How long each lease lasts from a renewal, in milliseconds. */
  readonly leaseMs: number;
  /** Renewals per `leaseMs` (the interval is `leaseMs / renewalsPerLease`). Defaults to 3. */
  readonly renewalsPerLease?: number;
}

/** Lease renewals while a delivery runs: its lease is extended every third of its length. */
export const RENEWALS_PER_LEASE = 3;

/** A lease's identity: its delivery and its lease number. */
const keyOf = (lease: DeliveryLease) => `${lease.id}/${leasesOf(lease)}`;

/** Keeps tracked leases renewed with one timer; see the module's header. */
export class LeaseKeeper<L extends DeliveryLease> {
  private readonly tracked = new Map<string, L>();
  /** The tracked leases whose owner is writing their end. */
  private readonly endingKeys = new Set<string>();
  /** The leases reported lost whose owner has not untracked them yet. */
  private readonly lostKeys = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly intervalMs: number;

  constructor(
    private readonly context: LeaseKeeperContext<L>,
    private readonly options: LeaseKeeperOptions,
  ) {
    this.intervalMs = options.leaseMs / (options.renewalsPerLease ?? RENEWALS_PER_LEASE);
  }

  /** How many leases are tracked. */
  get size(): number {
    return this.tracked.size;
  }

  /** Renews `lease` from the next interval on, until it is untracked. */
  track(lease: L): void {
    this.tracked.set(keyOf(lease), lease);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.renew(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Its owner is about to end `lease` (a write fenced by it): renewed still, never reported lost. */
  ending(lease: DeliveryLease): void {
    if (this.tracked.has(keyOf(lease))) this.endingKeys.add(keyOf(lease));
  }

  /** Whether `lease` was reported lost (and its owner has not untracked it since): not to be told twice. */
  reportedLost(lease: DeliveryLease): boolean {
    return this.lostKeys.has(keyOf(lease));
  }

  /** No longer renews `lease`, nor remembers it lost; the timer stops with the last one. */
  untrack(lease: DeliveryLease): void {
    this.forget(lease);
    this.lostKeys.delete(keyOf(lease));
  }

  /** No longer renews `lease`; the timer stops with the last one. */
  private forget(lease: DeliveryLease): void {
    this.tracked.delete(keyOf(lease));
    this.endingKeys.delete(keyOf(lease));
    if (this.tracked.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** One renewal of every tracked lease (what the timer runs); resolves when its reports are made. */
  async renew(): Promise<void> {
    const leases = [...this.tracked.values()];
    if (leases.length === 0) return;
    const held = await this.extend(leases);
    if (held === undefined || held >= leases.length) return;
    // Fewer held than renewed: ended by their owner meanwhile, or taken over. Only when more were
    // missed than its owner was ending is one surely taken over; then each still tracked (and not
    // ending) is asked about alone, which renews it if it is still held. Otherwise a loss, if any,
    // is left to the owner's own write, fenced by the lease, to find.
    const suspects = leases.filter((lease) => this.owns(lease));
    if (leases.length - held <= leases.length - suspects.length) return;
    await Promise.all(suspects.map((lease) => this.confirm(lease)));
  }

  /** Whether `lease` is still tracked and its owner is not ending it. */
  private owns(lease: L): boolean {
    const key = keyOf(lease);
    return this.tracked.get(key) === lease && !this.endingKeys.has(key);
  }

  /** Reports `lease` lost when a renewal of it alone finds it not held and its owner still holds it. */
  private async confirm(lease: L): Promise<void> {
    const held = await this.extend([lease]);
    if (held !== 0 || !this.owns(lease)) return;
    this.forget(lease);
    this.lostKeys.add(keyOf(lease));
    this.context.leaseLost(lease);
  }

  /** The store's extend; a failure is reported and resolves `undefined`. */
  private async extend(leases: readonly L[]): Promise<number | undefined> {
    try {
      return await this.context.extend(leases, this.options.leaseMs);
    } catch (error) {
      this.context.renewalFailed(error);
      return undefined;
    }
  }
}
