/**
 * @module The inbox worker (DESIGN.md §13): leases due deliveries in batches, runs each handler
 * through the guard's receipts (transactional completion), retries failures with exponential
 * backoff and jitter, dead-letters them after `maxAttempts`, and stops gracefully. Its options:
 * worker-options.ts; one batch's transaction: worker-batch.ts; single deliveries: worker-settle.ts.
 */
import {
  batcherOf,
  completerOf,
  guardFor,
  MAX_CLAIM_LIMIT,
  numberOption as number,
  refOf,
  warnOfSetup,
} from './run';
import type { Delivery } from './types';
import { type BatchScope, batchesOf, runBatch } from './worker-batch';
import { settlerFor } from './worker-settle';
import {
  DEFAULTS,
  type InboxWorker,
  type InboxWorkerOptions,
  RENEWALS_PER_LEASE,
  STOP_GRACE_MS,
  settingsOf,
} from './worker-options';

export type { InboxHandler } from './run';
export { type InboxWorker, type InboxWorkerOptions, retryDelayMs } from './worker-options';

/**
 * Builds an inbox worker; nothing runs until `start()` (or `runOnce()`). Each delivery runs its
 * provider's handler through an `IdempotencyGuard` (`@webhook-idempotency/core`) keyed by the
 * delivery's provider and external id, so a delivery that is claimed again (a worker died, a
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
  const {
    inbox,
    handlers,
    providers,
    emit,
    concurrency,
    batchSize,
    batchWindowMs,
    pollIntervalMs,
    visibility,
    maxAttempts,
    backoff,
    leaseMs,
  } = settingsOf(options);
  const guard = guardFor(options, visibility);
  warnOfSetup(inbox, guard, emit);
  /** Marks a delivery done in its receipt's transaction, where inbox and receipts share one. */
  const complete = completerOf(inbox, guard);
  /** Runs first deliveries in batches, one transaction each, where inbox and receipts share one. */
  const batcher = batchSize > 1 ? batcherOf(inbox, guard) : undefined;
  const { processOne, failed, release, storeAnswered } = settlerFor({
    inbox,
    guard,
    handlers,
    emit,
    maxAttempts,
    backoff,
    complete,
  });

  const inFlight = new Map<Delivery, Promise<void>>();
  /** Aborted by stop() once its timeout has passed: the runs still going are ended and given back. */
  let stopping = new AbortController();

  /** The transactions under way: a batch, or one delivery on its own. At most `concurrency`. */
  let lanes = 0;
  /** Claimed and held (leases renewed), waiting for a free lane: batches, or single deliveries. */
  const waiting: Delivery[][] = [];
  /** Set by stop(): what has not started is given back, and lanes start nothing new. */
  let halting = false;
  /** Ends each held delivery's hold. */
  const finishers = new Map<Delivery, () => void>();

  /** Ends `delivery`'s hold once `work` settles; resolves then, never rejects. */
  const settleAs = (delivery: Delivery, work: Promise<void>): Promise<void> =>
    work
      .catch((error: unknown) => {
        // Only a throwing option (`random`) gets here: reported, and the lease left to expire.
        emit({ type: 'store-error', operation: 'process', error, delivery: refOf(delivery) });
      })
      .finally(() => {
        finishers.get(delivery)?.();
        finishers.delete(delivery);
      });

  /** What a batch needs of this worker, where deliveries run in batches. */
  const scope: BatchScope<Tx> | undefined = batcher && {
    batcher,
    guard,
    handlers,
    windowMs: batchWindowMs,
    emit,
    halting: () => halting,
    storeAnswered,
    settleAs,
    release,
    failed,
  };

  /**
   * One lane's transaction: `unit` (a batch, or one delivery). What a batch leaves goes back to
   * the front of the queue, spread over the lanes free then, so no lane works through a slow
   * batch's rest while others sit idle.
   */
  async function lane(unit: readonly Delivery[]): Promise<void> {
    const signal = stopping.signal;
    if (halting) {
      // Stopping: what has not started goes back at once, free of charge.
      await Promise.all(unit.map((d) => settleAs(d, release(d, 'shutdown', 0))));
      return;
    }
    if (unit.length === 1) {
      await settleAs(unit[0]!, processOne(unit[0]!, signal));
      return;
    }
    const { later, alone } = await runBatch(scope!, unit, signal);
    // This lane counts as free: it ends right after.
    const free = Math.max(1, concurrency - lanes + 1);
    waiting.unshift(...alone.map((d) => [d]), ...batchesOf(later, free, batchSize));
  }

  /** Starts waiting units while lanes are free; when stopping, gives them back instead. */
  const pump = (): void => {
    while (waiting.length > 0 && (halting || lanes < concurrency)) {
      const unit = waiting.shift()!;
      if (halting) {
        for (const delivery of unit) void settleAs(delivery, release(delivery, 'shutdown', 0));
        continue;
      }
      lanes++;
      void lane(unit)
        .catch((error: unknown) => {
          // Not expected (a lane settles each delivery): reported; what it left goes to its lease.
          emit({ type: 'store-error', operation: 'process', error });
          for (const delivery of unit) finishers.get(delivery)?.();
        })
        .finally(() => {
          lanes--;
          pump();
          if (running) wake(0);
        });
    }
  };

  /** Keeps the leases of the deliveries in flight from expiring while their handlers run. */
  let renewal: ReturnType<typeof setInterval> | undefined;
  const renew = () => {
    const leases = [...inFlight.keys()];
    if (leases.length > 0)
      inbox.extend(leases, { leaseMs }).catch((error: unknown) => {
        // The lease may run out: another worker then takes the delivery over, fenced by its receipt.
        emit({ type: 'store-error', operation: 'extend', error });
      });
  };

  /** Holds `delivery` in flight (its lease renewed, stop() waiting for it) until its part is over. */
  const hold = (delivery: Delivery): Promise<void> => {
    const done = new Promise<void>((resolve) => finishers.set(delivery, resolve)).finally(() => {
      inFlight.delete(delivery);
      if (inFlight.size === 0) {
        clearInterval(renewal);
        renewal = undefined;
      }
    });
    inFlight.set(delivery, done);
    if (renewal === undefined) {
      renewal = setInterval(renew, leaseMs / RENEWALS_PER_LEASE);
      renewal.unref?.();
    }
    return done;
  };

  /** Deliveries one lane takes from a claim: a batch's worth where deliveries run in batches. */
  const perLane = batcher === undefined ? 1 : batchSize;

  /**
   * Holds `claimed` and queues it for the free lanes: every delivery with a failure on its own,
   * and those without (where the inbox can batch them) in as few batches as hold them, at most
   * `batchSize` each and one per lane left. What the free lanes cannot start now (a claim sized for
   * batches that leased retries) is given back at once, free of charge (`surplus`): never held
   * where another worker could run it, nor charged with this one if it dies. Resolves when all
   * are settled.
   */
  const start = (claimed: readonly Delivery[]): Promise<void> => {
    const held = claimed.map(hold);
    const free = Math.max(1, concurrency - lanes);
    // No failure yet: a first lease, or one given back uncharged (a surplus, a stop): its receipt,
    // if any, is read by the batch (a replay goes alone). A retry after a failure runs alone.
    const isFirst = (d: Delivery) => batcher !== undefined && d.failures === 0;
    const single = claimed.filter((d) => !isFirst(d));
    const first = claimed.filter(isFirst);
    const alone = single.slice(0, free);
    const batched = first.slice(0, (free - alone.length) * batchSize);
    // As few batches as hold them: each transaction costs its own statements and commit, and a
    // claim that returns after more lanes freed up must not be cut into crumbs for them (those
    // lanes claim on their own). A batch whose handlers turn out slow spreads its rest (`lane`).
    const batches = Math.ceil(batched.length / batchSize);
    waiting.push(...batchesOf(batched, batches, batchSize), ...alone.map((d) => [d]));
    for (const delivery of [...single.slice(free), ...first.slice(batched.length)])
      void settleAs(delivery, release(delivery, 'surplus', 0));
    pump();
    return Promise.all(held).then(() => undefined);
  };

  /** Claims up to `limit`; a failed claim is reported and counts as nothing due. */
  const claim = async (limit: number): Promise<Delivery[]> => {
    try {
      return await inbox.claim({ providers, limit, leaseMs });
    } catch (error) {
      emit({ type: 'store-error', operation: 'claim', error });
      return [];
    }
  };

  /** What the free lanes take in one claim. */
  const room = (): number =>
    waiting.length > 0 ? 0 : Math.min(MAX_CLAIM_LIMIT, (concurrency - lanes) * perLane);

  let running = false;
  let claiming: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function wake(delayMs: number): void {
    if (!running || claiming || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      claiming = round().then(
        (next) => {
          claiming = undefined;
          // `undefined`: every lane is busy, and a finishing lane wakes the loop — unless one
          // finished while this round ran.
          if (next !== undefined) wake(next);
          else if (room() > 0) wake(0);
        },
        () => {
          claiming = undefined;
          wake(pollIntervalMs);
        },
      );
    }, delayMs);
  }

  /** One claim for the free lanes; resolves with the delay before the next one. */
  async function round(): Promise<number | undefined> {
    const limit = room();
    if (limit <= 0) return undefined;
    const claimed = await claim(limit);
    if (!running) {
      // stop() returned while this claim was blocked: what it leased goes back at once.
      await Promise.all(claimed.map((delivery) => release(delivery, 'shutdown', 0)));
      return undefined;
    }
    void start(claimed);
    // A full claim: more may be due at once. Otherwise wait for the next poll.
    return claimed.length === limit ? 0 : pollIntervalMs;
  }

  /** Resolves `true` when `work` settles within `expired`, `false` when `expired` comes first. */
  const settlesBefore = (work: Promise<unknown>, expired: Promise<void>): Promise<boolean> =>
    Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      expired.then(() => false),
    ]);

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      halting = false;
      if (stopping.signal.aborted) stopping = new AbortController();
      wake(0);
    },
    async stop({ timeoutMs = DEFAULTS.stopTimeoutMs } = {}) {
      const ms = number('timeoutMs', timeoutMs, 0);
      running = false;
      halting = true;
      clearTimeout(timer);
      timer = undefined;
      pump();
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, ms);
      });
      try {
        if (claiming && !(await settlesBefore(claiming, expired)))
          emit({
            type: 'store-error',
            operation: 'claim',
            error: new Error(
              `stop: the claim was still waiting on the inbox store after ${ms} ms; what it leases later is given back at once`,
            ),
          });
        if (inFlight.size === 0) return;
        if (await settlesBefore(Promise.allSettled(inFlight.values()), expired)) return;
        // Past the timeout: end the runs still going (a transaction is rolled back, so the give-back
        // never waits behind it) and give their deliveries back, free of charge.
        stopping.abort(new DOMException('The inbox worker is stopping', 'AbortError'));
        let grace: ReturnType<typeof setTimeout> | undefined;
        const graceOver = new Promise<void>((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
        });
        const given = await settlesBefore(Promise.allSettled(inFlight.values()), graceOver);
        clearTimeout(grace);
        if (!given)
          for (const delivery of inFlight.keys())
            emit({
              type: 'store-error',
              operation: 'release',
              error: new Error(
                `stop: the delivery could not be given back within ${STOP_GRACE_MS} ms; its lease will expire`,
              ),
              delivery: refOf(delivery),
            });
      } finally {
        clearTimeout(deadline);
      }
    },
    async runOnce() {
      halting = false;
      const claimed = await claim(Math.min(MAX_CLAIM_LIMIT, concurrency * perLane));
      await start(claimed);
      return claimed.length;
    },
  };
}
