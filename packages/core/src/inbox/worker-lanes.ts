/**
 * @module The inbox worker's lanes: what it does with what it leased. Each lane runs one transaction at a
 * time, a group of first deliveries or one delivery on its own; at most `concurrency` run at once.
 *
 * - **In hand.** Every claimed delivery is in hand from its claim until its part is over: its lease
 *   tracked by the lease keeper (renewed), and `stop()` waiting for it ({@link Lanes.inFlight}).
 * - **Waiting.** What the free lanes cannot start yet waits in one queue (groups, or single
 *   deliveries), and starts as lanes free up. What a group has not started `groupWindowMs` into its
 *   transaction, and what its rollback leaves, goes back to the front of that queue, spread over the
 *   lanes free then, so no delivery waits behind a slow handler while lanes idle.
 * - **Halting.** Once the worker is stopping, the lanes start nothing: what waits is given back at
 *   once, free of charge, and so is whatever a group hands out later.
 */
import { MAX_LEASE_LIMIT, refOf } from './run';
import type { Delivery, InboxEvent } from './types';
import type { LeaseKeeper } from './lease-keeper';
import {
  type GroupLeft,
  groupsOfFirst,
  type GroupRunScope,
  runGroup,
  unitsOf,
} from './worker-group';
import type { LeaseEnds } from './worker-lease-ends';

/** What a group needs of the worker besides the lanes (where deliveries run in groups). */
export type GroupScope<Tx> = Pick<
  GroupRunScope<Tx>,
  'completeIn' | 'guard' | 'handlers' | 'windowMs' | 'emit'
>;

/** What the lanes need of their worker. */
export interface LanesScope<Tx> {
  readonly concurrency: number;
  readonly groupSize: number;
  readonly emit: (event: InboxEvent) => void;
  readonly keeper: LeaseKeeper<Delivery>;
  readonly settler: LeaseEnds<Tx>;
  /** Where first deliveries run in groups; `undefined` where each runs on its own. */
  readonly group: GroupScope<Tx> | undefined;
  /** True once the worker is stopping: nothing new starts, what waits is given back. */
  halting(): boolean;
  /** The signal a lane's run gets: aborted by a stop past its deadline. */
  signal(): AbortSignal;
  /** A lane is free: the worker may lease again. */
  freed(): void;
}

/** The worker's lanes; see the module's header. */
export class Lanes<Tx> {
  /** Each delivery in hand, with what resolves once its part is over: what `stop()` waits for. */
  readonly inFlight = new Map<Delivery, Promise<void>>();
  /** Deliveries one lane takes from a lease call: a group's worth where deliveries run in groups. */
  readonly perLane: number;
  /** Lets go of each delivery in hand. */
  private readonly finishers = new Map<Delivery, () => void>();
  /** Claimed and in hand, waiting for a free lane: groups, or single deliveries. */
  private readonly waiting: Delivery[][] = [];
  /** The transactions under way. At most `concurrency`. */
  private busy = 0;
  /** What a group needs of this worker, where deliveries run in groups. */
  private readonly group: GroupRunScope<Tx> | undefined;

  constructor(private readonly scope: LanesScope<Tx>) {
    const { group, settler } = scope;
    this.perLane = group === undefined ? 1 : scope.groupSize;
    this.group = group && {
      ...group,
      halting: scope.halting,
      storeAnswered: settler.storeAnswered,
      handOut: (left) => this.queueFront(left, 0),
      settleAs: this.settleAs,
      giveBack: settler.giveBack,
      failed: settler.failed,
    };
  }

  /** What the free lanes take in one lease call; 0 while anything waits. */
  room(): number {
    const free = this.scope.concurrency - this.busy;
    return this.waiting.length > 0 ? 0 : Math.min(MAX_LEASE_LIMIT, free * this.perLane);
  }

  /**
   * Takes `leased` in hand and queues it for the free lanes: every delivery with a failure on its own,
   * and those without (where the inbox can group them) in as few groups as take them, at most
   * `groupSize` each and one per lane left. What the free lanes cannot start now (a lease call sized for
   * groups that leased retries) is given back at once, free of charge (`surplus`): never kept
   * where another worker could run it, nor charged with this one if it dies. Resolves when all
   * are settled.
   */
  begin(leased: readonly Delivery[]): Promise<void> {
    const { concurrency, groupSize, settler } = this.scope;
    const inHand = leased.map((delivery) => this.takeInHand(delivery));
    const free = Math.max(1, concurrency - this.busy);
    // No failure yet: a first lease, or one given back uncharged (a surplus, a stop): its receipt,
    // if any, is read by the group (a replay goes alone). A retry after a failure runs alone.
    const isFirst = (d: Delivery) => this.group !== undefined && d.failures === 0;
    const single = leased.filter((d) => !isFirst(d));
    const first = leased.filter(isFirst);
    const alone = single.slice(0, free);
    const grouped = first.slice(0, (free - alone.length) * groupSize);
    // As few groups as take them: each transaction costs its own statements and commit, and a
    // lease call that returns after more lanes freed up must not be cut into crumbs for them (those
    // lanes lease on their own). A group that turns out slow hands out its rest.
    const groups = Math.ceil(grouped.length / groupSize);
    this.waiting.push(...groupsOfFirst(grouped, groups, groupSize), ...alone.map((d) => [d]));
    for (const delivery of [...single.slice(free), ...first.slice(grouped.length)])
      void this.settleAs(delivery, settler.giveBack(delivery, 'surplus', 0));
    this.pump();
    return Promise.all(inHand).then(() => undefined);
  }

  /** Starts waiting units while lanes are free; when halting, gives them back instead. */
  pump(): void {
    while (
      this.waiting.length > 0 &&
      (this.scope.halting() || this.busy < this.scope.concurrency)
    ) {
      const unit = this.waiting.shift()!;
      if (this.scope.halting()) {
        for (const d of unit) void this.settleAs(d, this.scope.settler.giveBack(d, 'shutdown', 0));
        continue;
      }
      this.busy++;
      void this.lane(unit)
        .catch((error: unknown) => {
          // Not expected (a lane settles each delivery): reported; what it left goes to its lease.
          this.scope.emit({ type: 'store-error', operation: 'process', error });
          for (const delivery of unit) this.finishers.get(delivery)?.();
        })
        .finally(() => {
          this.busy--;
          this.pump();
          this.scope.freed();
        });
    }
  }

  /** Lets go of `delivery` once `work` settles; resolves then, never rejects. */
  private readonly settleAs = (delivery: Delivery, work: Promise<void>): Promise<void> =>
    work
      .catch((error: unknown) => {
        // Only a throwing option (`random`) gets here: reported, and the lease left to expire.
        this.scope.emit({
          type: 'store-error',
          operation: 'process',
          error,
          delivery: refOf(delivery),
        });
      })
      .finally(() => {
        this.finishers.get(delivery)?.();
        this.finishers.delete(delivery);
      });

  /**
   * One lane's transaction: `unit` (a group, or one delivery). What a group has not started goes
   * back to the front of the queue while it runs, and what its rollback leaves once it is over.
   */
  private async lane(unit: readonly Delivery[]): Promise<void> {
    const { settler } = this.scope;
    const signal = this.scope.signal();
    if (this.scope.halting()) {
      // Stopping: what has not started goes back at once, free of charge.
      await Promise.all(unit.map((d) => this.settleAs(d, settler.giveBack(d, 'shutdown', 0))));
      return;
    }
    if (unit.length === 1) {
      await this.settleAs(unit[0]!, settler.processOne(unit[0]!, signal));
      return;
    }
    const left = await runGroup(this.group!, unit, signal);
    // This lane counts as free: it ends right after.
    this.queueFront(left, 1);
  }

  /** Queues what left a group at the front, spread over the lanes free (plus `ending`, about to be). */
  private queueFront(left: GroupLeft, ending: number): void {
    const free = this.scope.concurrency - this.busy + ending;
    this.waiting.unshift(...unitsOf(left, free, this.scope.groupSize));
    if (ending === 0) this.pump();
  }

  /** Takes `delivery` in hand (its lease renewed, `stop()` waiting for it) until its part is over. */
  private takeInHand(delivery: Delivery): Promise<void> {
    const { keeper } = this.scope;
    const done = new Promise<void>((resolve) => this.finishers.set(delivery, resolve)).finally(
      () => {
        this.inFlight.delete(delivery);
        keeper.untrack(delivery);
      },
    );
    this.inFlight.set(delivery, done);
    keeper.track(delivery);
    return done;
  }
}
