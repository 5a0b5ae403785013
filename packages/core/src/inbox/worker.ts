/**
 * @module The inbox worker (DESIGN.md §13): leases due deliveries in batches, runs each handler
 * through the guard's receipts (transactional completion), retries failures with exponential
 * backoff and jitter, dead-letters them after `maxAttempts`, and stops gracefully.
 */
import { abortReason } from '../abort';
import { DeliveryOutcome, SECOND } from '../constants';
import { ConfigError, HandlerTimeout, StoreError } from '../errors';
import { RequestKey } from '../request-key';
import {
  batcherOf,
  completerOf,
  errorText,
  emitter,
  guardFor,
  MAX_CLAIM_LIMIT,
  type InboxHandler,
  numberOption as number,
  providersOf,
  type ReceiptsOptions,
  refOf,
  runDelivery,
} from './run';
import type { BatchEntry, Delivery, InboxEvent, InboxStore } from './types';

export type { InboxHandler } from './run';

/** Options of {@link createInboxWorker}. */
export interface InboxWorkerOptions<Tx = never> extends ReceiptsOptions<Tx> {
  /** Where the deliveries are (`new SqlInbox(db)`). Required. */
  inbox: InboxStore;
  /** One handler per provider; the worker claims only deliveries of these providers. Required. */
  handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  /**
   * Handlers running at once in this worker, each in a transaction of its own (a batch's handlers
   * run one after another in theirs), at most 1000. Defaults to 8.
   */
  concurrency?: number;
  /**
   * Deliveries without a failure yet run up to this many to a transaction where the inbox
   * and the receipts share one (`SqlInbox` and `SqlStore` on the same `db`): their handlers one
   * after another, then one statement for their receipts, one for their `done`, and one commit,
   * instead of two commits per delivery. A claim's first deliveries are spread over the free lanes,
   * so batches grow only while a backlog waits. A handler that throws first in its transaction
   * rolls the batch back and alone is charged; the others run again (docs/inbox.md, "Batches").
   * A claim leases up to `concurrency × batchSize` deliveries. At most 100; 1 turns batches off.
   * Defaults to 8.
   */
  batchSize?: number;
  /**
   * Milliseconds into a batch's transaction after which it starts no more handlers: it commits
   * what ran, and the rest goes to the next transaction (slow handlers end up one per
   * transaction). Defaults to 20.
   */
  batchWindowMs?: number;
  /** Milliseconds between claims while nothing is due. Defaults to 1000. */
  pollIntervalMs?: number;
  /**
   * How long a claimed delivery stays leased to this worker, in seconds: past it, another worker
   * takes it over (this one is presumed dead). The lease is renewed every third of it while the
   * delivery is in flight. With `store`, the receipts' `staleAfterSeconds` is 90 % of it and every
   * handler's deadline 80 % (with or without a transaction: `context.signal` aborts then), so a
   * handler never outlives its lease. Defaults to 60.
   */
  visibilityTimeoutSeconds?: number;
  /**
   * Failed attempts after which a delivery becomes `dead`: a handler that threw or passed its
   * deadline, or a lease that expired because its worker died (a delivery that kills its worker
   * every time is buried when claimed again). Releases (a stop, another run holding the receipt, a
   * receipts-store failure) do not count; a redelivery starts over. Defaults to 10.
   */
  maxAttempts?: number;
  /** First retry delay in milliseconds, doubled per attempt (and per receipts-store failure in a row). Defaults to 1000. */
  backoffBaseMs?: number;
  /** Longest retry delay in milliseconds. Defaults to one hour. */
  backoffMaxMs?: number;
  /** `[0, 1)`, for the jitter; for tests. Defaults to `Math.random`. */
  random?: () => number;
  /** Receives `processed`, `retry`, `dead`, `released`, `lease-lost` and `store-error` events. Errors it throws are ignored. */
  onEvent?: (event: InboxEvent) => void;
}

/** A running (or stopped) inbox worker. */
export interface InboxWorker {
  /** Starts claiming and processing in the background. Keeps the process alive until {@link InboxWorker.stop}. */
  start(): void;
  /**
   * Stops claiming, gives back at once what was claimed but not started (the rest of a batch
   * included), waits up to `timeoutMs` (default 10 000) for the handlers in flight, then ends
   * the runs still going (a transaction is rolled back; `context.signal` aborts) and gives their
   * deliveries back (`pending`, due at once, no failure counted) so another worker takes them.
   * A claim still blocked on the store does not hold it past `timeoutMs` (a `store-error` event
   * says so, and what it leases later is given back); give-back writes get 2 s more. Resolves when
   * done.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One claim (up to `concurrency × batchSize` deliveries where they run in batches, else `concurrency`) and their processing; resolves with how many were claimed. */
  runOnce(): Promise<number>;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}

/** Lease renewals while a delivery runs: the lease is extended every `visibilityTimeoutSeconds / 3`. */
const RENEWALS_PER_LEASE = 3;
/** How long stop() waits, once it has ended the runs still going, for their deliveries to be given back. */
const STOP_GRACE_MS = 2000;

/** The largest `batchSize`: a batch reads its receipts in one statement of a SELECT per key (SQLite allows 500). */
const MAX_BATCH_SIZE = 100;

const DEFAULTS = {
  concurrency: 8,
  batchSize: 8,
  batchWindowMs: 20,
  pollIntervalMs: 1000,
  visibilityTimeoutSeconds: 60,
  maxAttempts: 10,
  backoffBaseMs: 1000,
  backoffMaxMs: 3_600_000,
  stopTimeoutMs: 10_000,
};

/**
 * Exponential backoff with jitter after the `failures`-th failure (1 for the first):
 * `min(maxMs, baseMs · 2^(failures − 1))`, of which a random
 * half is taken off, so deliveries that failed together do not come back together.
 */
export function retryDelayMs(
  failures: number,
  options: { baseMs: number; maxMs: number; random: () => number },
): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * options.random());
}

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
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `store` and `handlers`');
  const { inbox, handlers, random = Math.random } = options;
  if (!inbox || typeof inbox.claim !== 'function')
    throw new ConfigError('inbox', 'must implement InboxStore (new SqlInbox(db))');
  const providers = providersOf(handlers);
  const emit = emitter(options.onEvent);
  if (typeof random !== 'function') throw new ConfigError('random', 'must be a function');
  const concurrency = number(
    'concurrency',
    options.concurrency ?? DEFAULTS.concurrency,
    1,
    true,
    MAX_CLAIM_LIMIT,
  );
  const batchSize = number(
    'batchSize',
    options.batchSize ?? DEFAULTS.batchSize,
    1,
    true,
    MAX_BATCH_SIZE,
  );
  const batchWindowMs = number('batchWindowMs', options.batchWindowMs ?? DEFAULTS.batchWindowMs, 0);
  const pollIntervalMs = number(
    'pollIntervalMs',
    options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    1,
  );
  const visibility = number(
    'visibilityTimeoutSeconds',
    options.visibilityTimeoutSeconds ?? DEFAULTS.visibilityTimeoutSeconds,
    0.1,
  );
  const maxAttempts = number('maxAttempts', options.maxAttempts ?? DEFAULTS.maxAttempts, 1, true);
  const backoff = {
    baseMs: number('backoffBaseMs', options.backoffBaseMs ?? DEFAULTS.backoffBaseMs, 0),
    maxMs: number('backoffMaxMs', options.backoffMaxMs ?? DEFAULTS.backoffMaxMs, 0),
    random,
  };
  const leaseMs = visibility * SECOND;
  const guard = guardFor(options, visibility);
  /** Marks a delivery done in its receipt's transaction, where inbox and receipts share one. */
  const complete = completerOf(inbox, guard);
  /** Runs first deliveries in batches, one transaction each, where inbox and receipts share one. */
  const batcher = batchSize > 1 ? batcherOf(inbox, guard) : undefined;

  /** A settle write; a store failure leaves the lease to expire, and another claim finishes the job. */
  const settle = async (
    delivery: Delivery,
    operation: string,
    write: () => Promise<boolean>,
  ): Promise<boolean> => {
    try {
      const ok = await write();
      if (!ok) emit({ type: 'lease-lost', delivery: refOf(delivery) });
      return ok;
    } catch (error) {
      emit({ type: 'store-error', operation, error, delivery: refOf(delivery) });
      return false;
    }
  };

  /** Gives the delivery back without counting a failure: due after `delayMs`. */
  const release = async (
    delivery: Delivery,
    reason: 'in-progress' | 'store-error' | 'shutdown' | 'surplus',
    delayMs: number,
  ): Promise<void> => {
    const operation = reason === 'shutdown' || reason === 'surplus' ? 'release' : 'retry';
    if (await settle(delivery, operation, () => inbox.retry(delivery, { delayMs, error: null })))
      emit({ type: 'released', delivery: refOf(delivery), reason });
  };

  /** Receipts-store failures in a row: each one pushes the deliveries it met further out. */
  let storeFailures = 0;
  /** The receipts store failed this delivery (not its handler): back off without spending an attempt. */
  const storeTrouble = (delivery: Delivery, error: unknown): Promise<void> => {
    emit({ type: 'store-error', operation: 'receipts', error, delivery: refOf(delivery) });
    return release(delivery, 'store-error', retryDelayMs(++storeFailures, backoff));
  };

  const inFlight = new Map<Delivery, Promise<void>>();
  /** Aborted by stop() once its timeout has passed: the runs still going are ended and given back. */
  let stopping = new AbortController();

  async function processOne(delivery: Delivery, signal: AbortSignal): Promise<void> {
    const ref = refOf(delivery);
    if (delivery.failures >= maxAttempts) {
      // Taken over after as many failures as a handler may have, the last one a worker that died
      // holding it: dead, without running again, unless its receipt shows the handler committed.
      let receipt: Awaited<ReturnType<typeof guard.find>>;
      try {
        receipt = await guard.find(new RequestKey(delivery.provider, delivery.externalId));
      } catch (error) {
        return storeTrouble(delivery, error);
      }
      if (receipt?.status === 'completed') {
        if (await settle(delivery, 'complete', () => inbox.complete(delivery)))
          emit({ type: 'processed', delivery: ref, replayed: true });
        return;
      }
      const text = `LeaseExpired: dead after ${delivery.failures} failed attempts, the last one a worker that stopped holding it`;
      if (await settle(delivery, 'bury', () => inbox.bury(delivery, { error: text })))
        emit({ type: 'dead', delivery: ref, error: text });
      return;
    }
    const result = await runDelivery(guard, handlers[delivery.provider]!, delivery, {
      signal,
      complete,
    });
    if (result.kind === 'processed') {
      storeFailures = 0;
      // Marked done in the receipt's transaction, or found taken over there: nothing left to write.
      if (result.completed !== undefined) {
        emit(
          result.completed
            ? { type: 'processed', delivery: ref, replayed: false }
            : { type: 'lease-lost', delivery: ref },
        );
        return;
      }
      if (await settle(delivery, 'complete', () => inbox.complete(delivery)))
        emit({ type: 'processed', delivery: ref, replayed: result.replayed });
      return;
    }
    // Stopped mid-run (rolled back, or no longer waited for): given back at once, free of charge.
    if (signal.aborted) return release(delivery, 'shutdown', 0);
    if (result.kind === 'busy') {
      // Not this delivery's failure. Another run's claim: look again once it can have settled or
      // gone stale. The receipts store: back off, longer while it keeps failing.
      if (result.reason === 'store-error') return storeTrouble(delivery, result.error);
      return release(delivery, 'in-progress', result.delayMs);
    }
    storeFailures = 0;
    return failed(delivery, result.text);
  }

  /** The handler failed (`text`): retried after a backoff, or dead after `maxAttempts`. */
  async function failed(delivery: Delivery, text: string): Promise<void> {
    const ref = refOf(delivery);
    if (delivery.failures + 1 >= maxAttempts) {
      if (await settle(delivery, 'bury', () => inbox.bury(delivery, { error: text })))
        emit({ type: 'dead', delivery: ref, error: text });
      return;
    }
    const delayMs = retryDelayMs(delivery.failures + 1, backoff);
    if (await settle(delivery, 'retry', () => inbox.retry(delivery, { delayMs, error: text })))
      emit({ type: 'retry', delivery: ref, delayMs, error: text });
  }

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

  /**
   * Runs `batch` (deliveries without a failure yet) in one transaction of the receipts store
   * (DeliveryBatcher): their handlers one after another, then their receipts and their `done`, one
   * commit. Resolves with what is left: `later`, first deliveries for another batch (those past
   * the window or not started because the worker is stopping, or those a failed handler's rollback
   * took with it), and `alone`, deliveries that run on their own, where their receipt decides (a
   * receipt already there, the batch failed in the store, or a handler that failed after others
   * ran in the same transaction, which may have left it unusable). A handler that threw or passed
   * its deadline as the transaction's first is that delivery's failure; a stop mid-run gives the
   * whole batch back.
   */
  async function runBatch(
    batch: readonly Delivery[],
    signal: AbortSignal,
  ): Promise<{ later: Delivery[]; alone: Delivery[] }> {
    const ran: BatchEntry[] = [];
    const handlerMs: number[] = [];
    const alone: Delivery[] = [];
    const later: Delivery[] = [];
    /** The delivery whose handler is running, whether it ran first in the transaction, and what it threw. */
    let current: Delivery | undefined;
    let currentFirst = false;
    let thrown: { error: unknown } | undefined;
    const run = new AbortController();
    const timeoutMs = guard.handlerTimeoutMs;
    const started = performance.now();
    const timer = setTimeout(() => {
      const at = current ?? batch[0]!;
      run.abort(new HandlerTimeout(at.provider, at.externalId, timeoutMs));
    }, timeoutMs);
    timer.unref?.();
    const onStop = () => run.abort(abortReason(signal));
    if (signal.aborted) onStop();
    else signal.addEventListener('abort', onStop, { once: true });
    // Ended at the deadline or by stop() even if the store never settles the transaction.
    let onEnd!: () => void;
    const ended = new Promise<never>((_, reject) => {
      onEnd = () => reject(abortReason(run.signal));
      run.signal.addEventListener('abort', onEnd, { once: true });
    });
    ended.catch(() => undefined);
    let results: boolean[] | undefined;
    let failure: unknown;
    try {
      const work = batcher!.run(
        batch,
        async (transaction, known) => {
          // The window counts from the transaction's start, not from the wait for its connection.
          const opened = performance.now();
          for (const delivery of batch) {
            if (known.has(delivery.id)) {
              alone.push(delivery);
              continue;
            }
            if (halting || (ran.length > 0 && performance.now() - opened > batchWindowMs)) {
              later.push(delivery);
              continue;
            }
            current = delivery;
            currentFirst = ran.length === 0;
            const began = performance.now();
            try {
              const value = await handlers[delivery.provider]!(delivery, {
                key: new RequestKey(delivery.provider, delivery.externalId),
                attempts: 1,
                isRetry: false,
                transaction: transaction as Tx,
                signal: run.signal,
              });
              if (run.signal.aborted) throw abortReason(run.signal);
              ran.push({ delivery, response: guard.encode(value) });
            } catch (error) {
              thrown = { error };
              throw error;
            }
            handlerMs.push(performance.now() - began);
          }
          current = undefined;
          return ran;
        },
        { signal: run.signal, timeoutMs },
      );
      work.catch(() => undefined);
      results = await Promise.race([work, ended]);
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
      run.signal.removeEventListener('abort', onEnd);
    }
    if (results !== undefined) {
      storeFailures = 0;
      ran.forEach(({ delivery }, i) => {
        emit(
          results[i]
            ? { type: 'processed', delivery: refOf(delivery), replayed: false }
            : { type: 'lease-lost', delivery: refOf(delivery) },
        );
        if (guard.onEvent)
          guard.emit({
            type: 'delivered',
            key: new RequestKey(delivery.provider, delivery.externalId),
            outcome: DeliveryOutcome.FIRST,
            attempts: 1,
            durationMs: performance.now() - started,
            handlerMs: handlerMs[i],
            status: undefined,
          });
        void settleAs(delivery, Promise.resolve());
      });
      return { later, alone };
    }
    // Rolled back: nothing of the batch committed.
    if (signal.aborted) {
      await Promise.all(batch.map((d) => settleAs(d, release(d, 'shutdown', 0))));
      return { later: [], alone: [] };
    }
    const timedOut = run.signal.reason instanceof HandlerTimeout;
    // The handler's own failure, unless its connection failed under it (a StoreError the handler
    // did not throw itself): that is the store's, and every delivery of the batch runs again on its own.
    const culprit =
      current !== undefined &&
      (timedOut ||
        (thrown !== undefined && !(failure instanceof StoreError && failure !== thrown.error)))
        ? current
        : undefined;
    if (culprit !== undefined && !currentFirst) {
      // Others ran before it in that transaction and may have left it unusable (a statement of
      // theirs that failed and was caught, a setting): it is judged again on its own, uncharged.
      return { later: batch.filter((d) => d !== culprit), alone: [culprit] };
    }
    if (culprit === undefined) {
      // The store failed the batch (or a receipt of it was written meanwhile): reported, and each
      // delivery runs again on its own, where its receipt decides.
      emit({ type: 'store-error', operation: 'batch', error: failure });
      return { later: [], alone: [...batch] };
    }
    const text = errorText(timedOut ? run.signal.reason : thrown!.error);
    await settleAs(culprit, failed(culprit, text));
    return { later: batch.filter((d) => d !== culprit), alone: [] };
  }

  /** Batchable deliveries in at most `lanes` batches of at most `batchSize`, as even as can be. */
  const batchesOf = (first: readonly Delivery[], lanes: number): Delivery[][] => {
    if (first.length === 0 || lanes <= 0) return [];
    const size = Math.min(batchSize, Math.ceil(first.length / lanes));
    const batches: Delivery[][] = [];
    for (let i = 0; i < first.length; i += size) batches.push(first.slice(i, i + size));
    return batches;
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
    const { later, alone } = await runBatch(unit, signal);
    // This lane counts as free: it ends right after.
    const free = Math.max(1, concurrency - lanes + 1);
    waiting.unshift(...alone.map((d) => [d]), ...batchesOf(later, free));
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
   * and those without (where the inbox can batch them) in batches spread over the lanes left, at
   * most `batchSize` each. What the free lanes cannot start now (a claim sized for
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
    waiting.push(...batchesOf(batched, free - alone.length), ...alone.map((d) => [d]));
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
