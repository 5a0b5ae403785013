/**
 * @module The outbox dispatcher: leases committed messages of the senders it has, sends each with
 * its effect key under a deadline, and ends each lease (sent → done, a failure → retry after a
 * backoff, dead after `maxFailures` or at once on a `PermanentSendFailure`, a stop → given back).
 * It is built from the inbox worker's parts, on the outbox's table:
 *
 * - **States and the loop** (inbox/poll-loop.ts): `idle → running → stopping → stopped`; each
 *   round is one lease call for the free places (at most `concurrency` sends at once), then a nap
 *   (none after a full lease call, the poll interval after a short one, until a send ends while
 *   every place is taken).
 * - **Lease renewal** (inbox/lease-keeper.ts): every message in hand has its lease renewed by one
 *   timer until its lease is ended; a lease found taken over is reported (`lease-lost`) once.
 * - **Stop with a deadline** (inbox/stopper.ts): waits for the lease call and the sends under way
 *   until the deadline, then aborts the sends' signals and gives their messages back.
 * - **One message** (dispatch-message.ts): the row read back, one attempt, the write that ends
 *   its lease (the worker's, inbox/lease-writes.ts). Its options: dispatcher-options.ts.
 */
import { leaseDeliveries } from '../inbox/inbox-store';
import { LeaseKeeper } from '../inbox/lease-keeper';
import { LoopState, PollingMachine, UNTIL_WOKEN } from '../inbox/poll-loop';
import { errorText, MAX_LEASE_LIMIT } from '../inbox/run';
import { stopWithDeadline } from '../inbox/stopper';
import type { Delivery } from '../inbox/types';
import { STOP_GRACE_MS } from '../inbox/worker-options';
import { attempt, MessageLeaseEnds, messageRefOf, readMessage } from './dispatch-message';
import {
  DISPATCHER_DEFAULTS,
  type DispatcherSettings,
  dispatcherSettingsOf,
  type OutboxDispatcher,
  type OutboxDispatcherOptions,
} from './dispatcher-options';

export type { OutboxDispatcher, OutboxDispatcherOptions } from './dispatcher-options';

/**
 * Builds an outbox dispatcher; nothing runs until `start()` (or `runOnce()`). Each message goes to
 * the sender named by its row, with its effect key, on every attempt: a dispatcher that dies
 * mid-send leaves its lease to run out, and the next one sends again under the same key, which
 * the receiving side deduplicates.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const dispatcher = createOutboxDispatcher({
 *   outbox: new SqlOutbox(pool, { receipts: store }),
 *   senders: { http: httpSender(), email: emailSender(transport, { messageIdDomain: 'shop.example' }) },
 * });
 * dispatcher.start();
 * process.once('SIGTERM', () => void dispatcher.stop().then(() => pool.end()));
 * @see docs/outbox.md
 */
export function createOutboxDispatcher(options: OutboxDispatcherOptions): OutboxDispatcher {
  const machine = new DispatcherMachine(dispatcherSettingsOf(options));
  return {
    get state() {
      return machine.state;
    },
    start: () => machine.start(),
    stop: (stopOptions?: { timeoutMs?: number }) => machine.stop(stopOptions),
    runOnce: () => machine.runOnce(),
  };
}

/** The dispatcher behind {@link createOutboxDispatcher}; see the module's header. */
class DispatcherMachine extends PollingMachine {
  private readonly keeper: LeaseKeeper<Delivery>;
  private readonly ends: MessageLeaseEnds;
  /** Each message in hand, with what resolves once its lease is ended: what `stop()` waits for. */
  private readonly inFlight = new Map<Delivery, Promise<void>>();

  constructor(private readonly settings: DispatcherSettings) {
    super(DISPATCHER_DEFAULTS.stopTimeoutMs);
    const { outbox, leaseMs, emit } = settings;
    this.keeper = new LeaseKeeper<Delivery>(
      {
        extend: (leases, ms) => outbox.extend(leases, { leaseMs: ms }),
        // The lease may run out: another dispatcher then sends the message again, under its key.
        renewalFailed: (error) =>
          emit({ type: 'store-error', operation: 'extend', error: errorText(error) }),
        leaseLost: (row) => emit({ type: 'lease-lost', message: messageRefOf(row) }),
      },
      { leaseMs },
    );
    this.ends = new MessageLeaseEnds({ ...settings, keeper: this.keeper });
  }

  protected async stopWithin(ms: number): Promise<void> {
    const { emit } = this.settings;
    const left = await stopWithDeadline({
      timeoutMs: ms,
      step: this.loop.halt(),
      stepLate: () =>
        emit({
          type: 'store-error',
          operation: 'lease',
          error: `stop: the lease call was still waiting on the outbox store after ${ms} ms; what it leases later is given back at once`,
        }),
      runs: () => this.inFlight,
      abort: () => this.loop.endRuns(new DOMException('The dispatcher is stopping', 'AbortError')),
      graceMs: STOP_GRACE_MS,
    });
    if (left.length > 0)
      emit({
        type: 'store-error',
        operation: 'giveBack',
        error: `stop: ${left.length} message(s) could not be given back within ${STOP_GRACE_MS} ms; their leases will run out`,
      });
  }

  async runOnce(): Promise<number> {
    this.loop.rest();
    const leased = await this.leaseDue(this.room());
    await Promise.all(leased.map((row) => this.take(row)));
    return leased.length;
  }

  /** Sends that may start now: `concurrency` less those under way. */
  private room(): number {
    return Math.min(MAX_LEASE_LIMIT, this.settings.concurrency - this.inFlight.size);
  }

  /** One round of the loop: a lease call for the free places; resolves with the nap before the next. */
  protected async round(): Promise<number> {
    const limit = this.room();
    // Every place taken: a send that ends wakes the loop.
    if (limit <= 0) return UNTIL_WOKEN;
    const leased = await this.leaseDue(limit);
    if (this.loop.state !== LoopState.RUNNING) {
      // Stopped while this lease call was blocked: what it leased goes back at once, uncharged.
      await Promise.all(leased.map((row) => this.ends.giveBack(row)));
      return UNTIL_WOKEN;
    }
    for (const row of leased) void this.take(row);
    // A full lease call: more may be due at once. Otherwise wait for the next poll.
    return leased.length === limit ? 0 : this.settings.pollIntervalMs;
  }

  /** Leases up to `limit` due messages of the senders; a failed lease call is reported and counts as nothing due. */
  private async leaseDue(limit: number): Promise<Delivery[]> {
    if (limit <= 0) return [];
    const { outbox, senders, leaseMs, emit } = this.settings;
    try {
      return await leaseDeliveries(outbox, { providers: Object.keys(senders), limit, leaseMs });
    } catch (error) {
      emit({ type: 'store-error', operation: 'lease', error: errorText(error) });
      return [];
    }
  }

  /** Takes `row` in hand (its lease renewed, `stop()` waiting for it) until its lease is ended. */
  private take(row: Delivery): Promise<void> {
    this.keeper.track(row);
    const done = this.dispatch(row)
      .catch((error: unknown) => {
        // Only a throwing option (`random`) gets here: reported, and the lease left to run out.
        const { emit } = this.settings;
        emit({ type: 'store-error', operation: 'dispatch', error: errorText(error) });
      })
      .finally(() => {
        this.inFlight.delete(row);
        this.keeper.untrack(row);
        this.loop.wake();
      });
    this.inFlight.set(row, done);
    return done;
  }

  /** Reads `row`, sends it once, and ends its lease with what came of it. */
  private async dispatch(row: Delivery): Promise<void> {
    const { senders, maxFailures, sendTimeoutMs } = this.settings;
    if (row.failures >= maxFailures) return this.ends.lapsed(row);
    const message = readMessage(row, senders);
    if ('problem' in message) return this.ends.unsendable(row, message.problem);
    const outcome = await attempt(
      message.sender,
      message.input,
      sendTimeoutMs,
      this.loop.runSignal,
    );
    return this.ends.settle(row, outcome);
  }
}
