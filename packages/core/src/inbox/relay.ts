/**
 * @module The inbox relay: hands stored deliveries to a queue engine (pg-boss, BullMQ) instead of
 * our worker loop. A delivery is leased while it is handed over, so each one is queued once per
 * lease; a queue that loses it gets it again after the handoff timeout. It is the same state
 * machine as the worker's (poll-loop.ts: `idle → running → stopping → stopped`, one loop that runs
 * rounds while `running`, a nap between two rounds that a stop cuts short), with its round in
 * relay-round.ts and its options in relay-options.ts. Its stop is the shared stop with a deadline
 * (stopper.ts): it waits for the round under way until the deadline, and has no runs of its own
 * to end (the round gives back or hands over what it leased). It renews no lease on a timer: a
 * send has no deadline, and a renewed lease would let a send that hangs keep its deliveries from
 * every other relay; its leases are extended once the queue holds the jobs, and while the queue
 * reports a lapsed handoff's job still there.
 */
import { loopHandle, PollingMachine } from './poll-loop';
import {
  type InboxRelay,
  type InboxRelayOptions,
  RELAY_DEFAULTS,
  type RelaySettings,
  relaySettingsOf,
} from './relay-options';
import { RelayRound } from './relay-round';
import { stopWithDeadline } from './stopper';

export {
  type GivenQueuedDelivery,
  type HandoffState,
  type InboxRelay,
  type InboxRelayOptions,
  jobIdOf,
  type QueuedDelivery,
} from './relay-options';

/**
 * Builds a relay that claims due deliveries of `providers` and hands them to a queue through
 * `send`; use a bridge (`@webhook-idempotency/pg-boss`, `@webhook-idempotency/bullmq`) rather than
 * calling it directly. The deliveries stay `processing` while the queue has them; the consumer
 * marks them `done` or `dead`. Ordering groups still hold: the next delivery of a group is handed
 * over only once the one before it is finished. A failed send is retried after a backoff that
 * doubles per failure in a row, up to a minute.
 * @throws {ConfigError} naming the first invalid option.
 * @see docs/inbox.md
 */
export function createInboxRelay(options: InboxRelayOptions): InboxRelay {
  const machine = new InboxRelayMachine(relaySettingsOf(options));
  return loopHandle(machine);
}

/** The relay behind {@link createInboxRelay}; see the module's header. */
class InboxRelayMachine extends PollingMachine {
  private readonly rounds: RelayRound;

  constructor(private readonly settings: RelaySettings) {
    super(RELAY_DEFAULTS.stopTimeoutMs);
    this.rounds = new RelayRound(settings);
  }

  protected async stopWithin(ms: number): Promise<void> {
    await stopWithDeadline({
      timeoutMs: ms,
      step: this.loop.halt(),
      // That round still ends on its own: its claim is bounded by the store, its deliveries given
      // back or handed over.
      stepLate: () =>
        this.settings.emit({
          type: 'store-error',
          operation: 'lease',
          error: new Error(`stop: the round in progress had not ended after ${ms} ms`),
        }),
    });
  }

  async runOnce(): Promise<number> {
    this.loop.rest();
    return Math.max(0, await this.rounds.handOver());
  }

  /** One round of the loop: a lease call and a send; resolves with the nap before the next. */
  protected async round(): Promise<number> {
    const sent = await this.rounds.handOver().catch((error: unknown) => {
      // Only a misbehaving custom store gets here (SqlInbox reports through the round's own paths).
      this.settings.emit({ type: 'store-error', operation: 'lease', error });
      return -1;
    });
    return this.rounds.napAfter(sent);
  }
}
