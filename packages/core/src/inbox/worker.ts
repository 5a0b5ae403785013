/**
 * @module The inbox worker (DESIGN.md §13): leases due deliveries in batches, runs each handler
 * through the guard's receipts (transactional completion), retries failures with exponential
 * backoff and jitter, dead-letters them after `maxAttempts`, and stops gracefully.
 */
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { RequestKey } from '../request-key';
import {
  completerOf,
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
import type { Delivery, InboxEvent, InboxStore } from './types';

export type { InboxHandler } from './run';

/** Options of {@link createInboxWorker}. */
export interface InboxWorkerOptions<Tx = never> extends ReceiptsOptions<Tx> {
  /** Where the deliveries are (`new SqlInbox(db)`). Required. */
  inbox: InboxStore;
  /** One handler per provider; the worker claims only deliveries of these providers. Required. */
  handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  /** Deliveries processed at once by this worker (also the largest claim), at most 1000. Defaults to 8. */
  concurrency?: number;
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
   * Stops claiming, waits up to `timeoutMs` (default 10 000) for the handlers in flight, then ends
   * the runs still going (a transaction is rolled back; `context.signal` aborts) and gives their
   * deliveries back (`pending`, due at once, no failure counted) so another worker takes them.
   * A claim still blocked on the store does not hold it past `timeoutMs` (a `store-error` event
   * says so, and what it leases later is given back); give-back writes get 2 s more. Resolves when
   * done.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One claim (up to `concurrency` deliveries) and their processing; resolves with how many were claimed. */
  runOnce(): Promise<number>;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}

/** Lease renewals while a delivery runs: the lease is extended every `visibilityTimeoutSeconds / 3`. */
const RENEWALS_PER_LEASE = 3;
/** How long stop() waits, once it has ended the runs still going, for their deliveries to be given back. */
const STOP_GRACE_MS = 2000;

const DEFAULTS = {
  concurrency: 8,
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
 * provider's handler through an {@link IdempotencyGuard} keyed by the delivery's provider and
 * external id, so a delivery that is claimed again (a worker died, a lease expired, a duplicate
 * was redelivered) is replayed from its receipt instead of run twice.
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
    reason: 'in-progress' | 'store-error' | 'shutdown',
    delayMs: number,
  ): Promise<void> => {
    const operation = reason === 'shutdown' ? 'release' : 'retry';
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
    const { text } = result;
    if (delivery.failures + 1 >= maxAttempts) {
      if (await settle(delivery, 'bury', () => inbox.bury(delivery, { error: text })))
        emit({ type: 'dead', delivery: ref, error: text });
      return;
    }
    const delayMs = retryDelayMs(delivery.failures + 1, backoff);
    if (await settle(delivery, 'retry', () => inbox.retry(delivery, { delayMs, error: text })))
      emit({ type: 'retry', delivery: ref, delayMs, error: text });
  }

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

  const track = (delivery: Delivery): Promise<void> => {
    const done = processOne(delivery, stopping.signal)
      .catch((error: unknown) => {
        // Only a throwing option (`random`) gets here: reported, and the lease left to expire.
        emit({ type: 'store-error', operation: 'process', error, delivery: refOf(delivery) });
      })
      .finally(() => {
        inFlight.delete(delivery);
        if (inFlight.size === 0) {
          clearInterval(renewal);
          renewal = undefined;
        }
        if (running) wake(0);
      });
    inFlight.set(delivery, done);
    if (renewal === undefined) {
      renewal = setInterval(renew, leaseMs / RENEWALS_PER_LEASE);
      renewal.unref?.();
    }
    return done;
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
          // `undefined`: every slot is busy, and a finishing delivery wakes the loop — unless one
          // finished while this round ran.
          if (next !== undefined) wake(next);
          else if (inFlight.size < concurrency) wake(0);
        },
        () => {
          claiming = undefined;
          wake(pollIntervalMs);
        },
      );
    }, delayMs);
  }

  /** One claim for the free slots; resolves with the delay before the next one. */
  async function round(): Promise<number | undefined> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return undefined;
    const claimed = await claim(free);
    if (!running) {
      // stop() returned while this claim was blocked: what it leased goes back at once.
      await Promise.all(claimed.map((delivery) => release(delivery, 'shutdown', 0)));
      return undefined;
    }
    for (const delivery of claimed) void track(delivery);
    // A full claim: more may be due at once. Otherwise wait for the next poll.
    return claimed.length === free ? 0 : pollIntervalMs;
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
      if (stopping.signal.aborted) stopping = new AbortController();
      wake(0);
    },
    async stop({ timeoutMs = DEFAULTS.stopTimeoutMs } = {}) {
      const ms = number('timeoutMs', timeoutMs, 0);
      running = false;
      clearTimeout(timer);
      timer = undefined;
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
      const claimed = await claim(concurrency);
      await Promise.all(claimed.map(track));
      return claimed.length;
    },
  };
}
