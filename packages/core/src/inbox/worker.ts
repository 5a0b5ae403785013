/**
 * @module The inbox worker: leases due deliveries, runs each handler through the guard's receipts
 * (transactional completion), retries failures with exponential backoff and jitter, dead-letters
 * them after `maxFailures` failures, and stops within a deadline. It is a state machine with four parts:
 *
 * - **States and the loop** (poll-loop.ts): `idle → running → stopping → stopped`, one field; the
 *   loop runs {@link InboxWorkerMachine.round} while `running`: one lease call for the free lanes, then
 *   a nap (none after a full one, the poll interval after a short or a failed one, until a
 *   lane frees up when every lane is busy). A stop cuts the nap short.
 * - **Lanes** (worker-lanes.ts): what a lease call brings: deliveries in hand, groups and single
 *   deliveries waiting for a free lane, at most `concurrency` transactions at once; a group's
 *   transaction (worker-group.ts); a single delivery and the writes that end its lease (worker-lease-ends.ts).
 * - **Lease renewal** (lease-keeper.ts): every delivery in hand has its lease renewed by one timer until
 *   its part is over; a lease found taken over is reported (`lease-lost`) once.
 * - **Stop with a deadline** (stopper.ts): gives back what has not started, waits for the lease call
 *   and the runs under way until the deadline, ends the runs still going and gives them back.
 *
 * Its options: worker-options.ts.
 */
import { leaseDeliveries } from './inbox-store';
import { LeaseKeeper } from './lease-keeper';
import { LoopState, loopHandle, PollingMachine, UNTIL_WOKEN } from './poll-loop';
import { type CompleteIn, completerOf, groupsOf, guardFor, warnOfSetup } from './receipts-link';
import { MAX_LEASE_LIMIT, refOf } from './run';
import { stopWithDeadline } from './stopper';
import type { Delivery, DeliveryLease, InboxEvent } from './types';
import { Lanes } from './worker-lanes';
import {
  DEFAULTS,
  type InboxWorker,
  type InboxWorkerOptions,
  STOP_GRACE_MS,
  settingsOf,
} from './worker-options';
import { LeaseEnds } from './worker-lease-ends';

export type { InboxHandler } from './run';
export { type InboxWorker, type InboxWorkerOptions, retryDelayMs } from './worker-options';

/**
 * Builds an inbox worker; nothing runs until `start()` (or `runOnce()`). Each delivery runs its
 * provider's handler through an `IdempotencyGuard` (`@webhook-idempotency/core`) keyed by the
 * delivery's provider and external id, so a delivery that is leased again (a worker died, a
 * lease expired, a duplicate was redelivered) is replayed from its receipt instead of run twice.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const worker = createInboxWorker({
 *   inbox: new SqlInbox(pool),
 *   store: new SqlStore(pool),
 *   handlers: { stripe: async (delivery, { transaction }) => bookPayment(delivery, transaction) },
 * });
 * worker.start();
 * process.once('SIGTERM', () => void worker.stop().then(() => pool.end()));
 * @see docs/inbox.md
 */
export function createInboxWorker<Tx = never>(options: InboxWorkerOptions<Tx>): InboxWorker {
  const machine = new InboxWorkerMachine(options);
  return loopHandle(machine);
}

/** The worker behind {@link createInboxWorker}; see the module's header. */
class InboxWorkerMachine<Tx> extends PollingMachine {
  private readonly settings: ReturnType<typeof settingsOf<Tx>>;
  private readonly settler: LeaseEnds<Tx>;
  private readonly keeper: LeaseKeeper<Delivery>;
  private readonly lanes: Lanes<Tx>;

  constructor(options: InboxWorkerOptions<Tx>) {
    super(DEFAULTS.stopTimeoutMs);
    const settings = settingsOf(options);
    this.settings = settings;
    const { inbox, handlers, leaseMs } = settings;
    const guard = guardFor(options, settings.visibility);
    warnOfSetup(inbox, guard, settings.emit);
    const emit = this.report;
    this.keeper = new LeaseKeeper<Delivery>(
      {
        extend: (leases, ms) => inbox.extend(leases, { leaseMs: ms }),
        // The lease may run out: another worker then takes the delivery over, fenced by its receipt.
        renewalFailed: (error) =>
          settings.emit({ type: 'store-error', operation: 'extend', error }),
        leaseLost: (delivery) => settings.emit({ type: 'lease-lost', delivery: refOf(delivery) }),
      },
      { leaseMs },
    );
    const complete = this.endingOnComplete(completerOf(inbox, guard));
    const { maxFailures, backoff } = settings;
    this.settler = new LeaseEnds({
      inbox,
      guard,
      handlers,
      emit,
      maxFailures,
      backoff,
      complete,
      keeper: this.keeper,
    });
    const completeIn = settings.groupSize > 1 ? groupsOf(inbox, guard) : undefined;
    const windowMs = settings.groupWindowMs;
    this.lanes = new Lanes<Tx>({
      concurrency: settings.concurrency,
      groupSize: settings.groupSize,
      emit,
      keeper: this.keeper,
      settler: this.settler,
      group: completeIn && {
        completeIn: this.endingOnCommit(completeIn),
        guard,
        handlers,
        windowMs,
        emit,
      },
      halting: () => this.loop.halting,
      signal: () => this.loop.runSignal,
      freed: () => this.loop.wake(),
    });
  }

  protected async stopWithin(ms: number): Promise<void> {
    const leasing = this.loop.halt();
    const left = await stopWithDeadline({
      timeoutMs: ms,
      giveBack: () => this.lanes.pump(),
      step: leasing,
      stepLate: () =>
        this.report({
          type: 'store-error',
          operation: 'lease',
          error: new Error(
            `stop: the lease call was still waiting on the inbox store after ${ms} ms; what it leases later is given back at once`,
          ),
        }),
      runs: () => this.lanes.inFlight,
      // A transaction is rolled back, so the give-back never waits behind it.
      abort: () =>
        this.loop.endRuns(new DOMException('The inbox worker is stopping', 'AbortError')),
      graceMs: STOP_GRACE_MS,
    });
    for (const delivery of left)
      this.report({
        type: 'store-error',
        operation: 'giveBack',
        error: new Error(
          `stop: the delivery could not be given back within ${STOP_GRACE_MS} ms; its lease will expire`,
        ),
        delivery: refOf(delivery),
      });
  }

  async runOnce(): Promise<number> {
    this.loop.rest();
    const leased = await this.leaseDue(
      Math.min(MAX_LEASE_LIMIT, this.settings.concurrency * this.lanes.perLane),
    );
    await this.lanes.begin(leased);
    return leased.length;
  }

  /** One round of the loop: a lease call for the free lanes; resolves with the nap before the next. */
  protected async round(): Promise<number> {
    try {
      const limit = this.lanes.room();
      // Every lane busy: a lane that frees up wakes the loop.
      if (limit <= 0) return UNTIL_WOKEN;
      const leased = await this.leaseDue(limit);
      if (this.loop.state !== LoopState.RUNNING) {
        // Stopped while this lease call was blocked: what it leased goes back at once.
        await Promise.all(leased.map((d) => this.settler.giveBack(d, 'shutdown', 0)));
        return UNTIL_WOKEN;
      }
      void this.lanes.begin(leased);
      // A full lease call: more may be due at once. Otherwise wait for the next poll.
      return leased.length === limit ? 0 : this.settings.pollIntervalMs;
    } catch {
      // Not expected (a lease call reports its own failure): the next poll tries again.
      return this.settings.pollIntervalMs;
    }
  }

  /** Leases up to `limit`; a failed lease call is reported and counts as nothing due. */
  private async leaseDue(limit: number): Promise<Delivery[]> {
    const { inbox, providers, leaseMs } = this.settings;
    try {
      return await leaseDeliveries(inbox, { providers, limit, leaseMs });
    } catch (error) {
      this.report({ type: 'store-error', operation: 'lease', error });
      return [];
    }
  }

  /** Every event goes out here: a lease the keeper reported lost is not reported lost twice. */
  private readonly report = (event: InboxEvent): void => {
    if (event.type === 'lease-lost' && this.keeper.reportedLost(event.delivery)) return;
    this.settings.emit(event);
  };

  /** `complete` (marking done in the receipt's transaction), telling the keeper first. */
  private endingOnComplete(complete: ReturnType<typeof completerOf>) {
    return (
      complete &&
      ((lease: DeliveryLease, transaction: unknown) => {
        this.keeper.ending(lease);
        return complete(lease, transaction);
      })
    );
  }

  /** `completeIn` of a group's deliveries, telling the keeper about them before it marks them done. */
  private endingOnCommit(completeIn: CompleteIn): CompleteIn {
    return (leases, transaction) => {
      for (const lease of leases) this.keeper.ending(lease);
      return completeIn(leases, transaction);
    };
  }
}
