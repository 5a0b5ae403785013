/**
 * @module One round of the inbox relay ({@link RelayRound.handOver}): with `inspect`, the leases of
 * lapsed handoffs whose job the queue still holds are extended (a backlog, not a lapse); then a
 * lease call of due deliveries (taking over only the lapsed leases the queue disowned), the ones out of
 * handoffs buried (or done, when their receipt shows the handler committed), the rest sent, what
 * the queue refused given back, and what it took leased for the handoff timeout.
 */
import { SECOND } from '../constants';
import { RequestKey } from '../request-key';
import {
  type HandoffState,
  jobIdOf,
  type QueuedDelivery,
  type RelaySettings,
} from './relay-options';
import { giveBackLease, leaseDeliveryRefs } from './inbox-store';
import { leaseCount, withLeases } from './lease-count';
import { refOf } from './run';
import type { DeliveryLease, DeliveryRef, LeasedRef } from './types';

/** How long a leased delivery stays leased while its round is sent; past it another relay sends it again. */
const SEND_LEASE_MS = 30 * SECOND;
/** The longest back-off after failed sends in a row. */
const MAX_BACKOFF_MS = 60_000;

const toQueued = (d: DeliveryRef): QueuedDelivery => refOf(d);
const stillRunning = (state: HandoffState | undefined) => state === 'queued' || state === 'active';

/** The relay's rounds, and the failed sends in a row that its back-off counts. */
export class RelayRound {
  /** Sends that failed in a row: the next round waits longer, up to a minute. */
  private sendFailures = 0;

  constructor(private readonly settings: RelaySettings) {}

  /** How long to wait after a round that handed over `sent` (-1: it failed) before the next one. */
  napAfter(sent: number): number {
    const { sendSize, pollIntervalMs } = this.settings;
    if (sent === sendSize) return 0;
    const backoff =
      sent < 0 ? Math.min(MAX_BACKOFF_MS, pollIntervalMs * 2 ** this.sendFailures) : 0;
    return Math.max(pollIntervalMs, backoff);
  }

  /** One lease call and send; resolves with how many were handed over, -1 when it failed (reported, never thrown). */
  async handOver(): Promise<number> {
    const { inbox, inspect, emit, providers, sendSize } = this.settings;
    // With `inspect`, the lease call takes over only the expired leases the queue disowned (and only
    // while they are still expired and held under those leases): a lease that runs out after the
    // question waits for the next round's.
    const takeOver = inspect === undefined ? true : await this.extendBacklog(inspect);
    if (takeOver === undefined) return -1;
    let leased: LeasedRef[];
    try {
      leased = await leaseDeliveryRefs(inbox, {
        providers,
        limit: sendSize,
        leaseMs: SEND_LEASE_MS,
        takeOver,
      });
    } catch (error) {
      emit({ type: 'store-error', operation: 'lease', error });
      return -1;
    }
    if (leased.length === 0) return 0;
    const jobs = (await this.buryLapsed(leased)).map(toQueued);
    if (jobs.length === 0) return leased.length;
    return (await this.send(jobs)) ? leased.length : -1;
  }

  /**
   * Sends `jobs`; what the queue refused goes back to the inbox, and what it took is leased for the
   * handoff timeout. Resolves `false` when the send failed (reported; the jobs are given back).
   */
  private async send(jobs: QueuedDelivery[]): Promise<boolean> {
    const { inbox, emit, handoffMs } = this.settings;
    let accepted: readonly QueuedDelivery[];
    try {
      accepted = (await this.settings.send(jobs)) ?? jobs;
      this.sendFailures = 0;
    } catch (error) {
      this.sendFailures++;
      emit({ type: 'store-error', operation: 'send', error });
      await this.giveBack(jobs);
      return false;
    }
    const taken = new Set(accepted.map(jobIdOf));
    await this.giveBack(jobs.filter((job) => !taken.has(jobIdOf(job))));
    const queued = jobs.filter((job) => taken.has(jobIdOf(job)));
    try {
      await inbox.extend(queued, { leaseMs: handoffMs });
    } catch (error) {
      // The short lease runs out and the deliveries are sent again under new leases: the
      // consumer skips the superseded jobs, and the receipts keep the effect single.
      emit({ type: 'store-error', operation: 'extend', error });
    }
    if (queued.length > 0) emit({ type: 'queued', deliveries: queued });
    return true;
  }

  /** Back to the inbox, due at the next poll; a store failure only means the short lease runs out first. */
  private giveBack(refused: readonly QueuedDelivery[]): Promise<unknown> {
    const { inbox, pollIntervalMs } = this.settings;
    return Promise.all(
      refused.map((d) => giveBackLease(inbox, d, { delayMs: pollIntervalMs }).catch(() => false)),
    );
  }

  /**
   * Handoffs whose timeout passed while the queue still holds their job (queued behind a backlog,
   * or running) keep their lease for another handoff timeout: not a lapse, and not taken over.
   * Resolves with the leases of the others (the queue lost or finished their jobs), the oldest
   * `sendSize` of them: the leases this round's lease call may take over. `undefined` when the inbox or
   * the queue could not say: nothing is taken over this round.
   */
  private async extendBacklog(
    check: NonNullable<RelaySettings['inspect']>,
  ): Promise<DeliveryLease[] | undefined> {
    const { inbox, providers, sendSize, handoffMs, emit } = this.settings;
    const disowned: DeliveryLease[] = [];
    for (let afterId = 0; ; ) {
      try {
        const lapsed = (await inbox.lapsed({ providers, limit: sendSize, afterId })).map(
          withLeases,
        );
        if (lapsed.length === 0) return disowned;
        const states = await check(lapsed.map(toQueued));
        if (!Array.isArray(states) || states.length !== lapsed.length)
          throw new TypeError(`inspect must resolve one state per delivery (${lapsed.length})`);
        const held = lapsed.filter((_, i) => stillRunning(states[i]));
        if (held.length > 0) await inbox.extend(held, { leaseMs: handoffMs });
        for (const [i, d] of lapsed.entries())
          if (!stillRunning(states[i]) && disowned.length < sendSize)
            disowned.push({ id: d.id, ...leaseCount(d.leases) });
        if (lapsed.length < sendSize) return disowned;
        afterId = lapsed[lapsed.length - 1]!.id;
      } catch (error) {
        // Backs off as a failed send does: a queue that cannot answer would refuse the send too.
        this.sendFailures++;
        emit({ type: 'store-error', operation: 'inspect', error });
        return undefined;
      }
    }
  }

  /**
   * Deliveries whose handoffs lapsed `maxHandoffs` times are buried, not sent again; unless their
   * receipt shows the handler committed, and then they are done.
   */
  private async buryLapsed(leased: LeasedRef[]): Promise<LeasedRef[]> {
    const { inbox, emit, maxHandoffs } = this.settings;
    const send: LeasedRef[] = [];
    for (const d of leased) {
      if (d.failures < maxHandoffs) {
        send.push(d);
        continue;
      }
      if (await this.committed(d)) {
        try {
          if (await inbox.complete(d))
            emit({ type: 'processed', delivery: refOf(d), replayed: true });
        } catch (cause) {
          emit({ type: 'store-error', operation: 'complete', error: cause, delivery: refOf(d) });
        }
        continue;
      }
      const error = `LeaseExpired: ${d.failures} handoffs to the queue lapsed without the job settling it`;
      try {
        if (await inbox.bury(d, { error })) emit({ type: 'dead', delivery: refOf(d), error });
      } catch (cause) {
        emit({ type: 'store-error', operation: 'bury', error: cause, delivery: refOf(d) });
      }
    }
    return send;
  }

  /** Whether the delivery's receipt shows its handler committed; `false` without a store or when it cannot say. */
  private async committed(d: DeliveryRef): Promise<boolean> {
    const { store, emit } = this.settings;
    if (store === undefined) return false;
    try {
      const key = new RequestKey(d.provider, d.externalId);
      return (await store.find(key, { now: Date.now() }))?.status === 'completed';
    } catch (error) {
      emit({ type: 'store-error', operation: 'find', error, delivery: refOf(d) });
      return false;
    }
  }
}
