/**
 * @module One batch of the inbox worker: first deliveries run one after another in a single
 * transaction of the receipts store ({@link DeliveryBatcher}); what the batch has not started
 * leaves it once the transaction has run its window, and what a failure leaves is sorted for the
 * lanes: charged, run again alone, or run again in another batch.
 */
import { AsyncResource } from 'node:async_hooks';
import { abortReason } from '../abort';
import { DeliveryOutcome } from '../constants';
import { HandlerTimeout, StoreError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import type { Trace } from '../trace';
import { isPermanent } from './handlers';
import { errorText, type InboxHandler, refOf } from './run';
import type { BatchEntry, Delivery, DeliveryBatcher, InboxEvent } from './types';

/** Why a delivery goes back to `pending` without a failure counted. */
export type ReleaseReason = 'in-progress' | 'store-error' | 'shutdown' | 'surplus';

/** What a batch leaves to other transactions: first deliveries to batch again, and deliveries to run alone. */
export interface BatchLeft {
  readonly later: Delivery[];
  readonly alone: Delivery[];
}

/** What a batch needs of its worker. */
export interface BatchScope<Tx> {
  readonly batcher: DeliveryBatcher;
  readonly guard: IdempotencyGuard<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  /**
   * `batchWindowMs`: how far into its transaction a batch still starts handlers; past it, what
   * the batch has not started leaves it ({@link BatchScope.handOut}), even while a handler runs.
   */
  readonly windowMs: number;
  readonly emit: (event: InboxEvent) => void;
  /** True once the worker is stopping: a batch starts no more handlers. */
  halting(): boolean;
  /** The receipts store committed a batch: the run of store failures is over. */
  storeAnswered(): void;
  /** Queues what left a batch that is still running, for the lanes free now. */
  handOut(left: BatchLeft): void;
  /** Ends `delivery`'s hold once `work` settles. */
  settleAs(delivery: Delivery, work: Promise<void>): Promise<void>;
  /** Gives `delivery` back without counting a failure, due after `delayMs`. */
  release(delivery: Delivery, reason: ReleaseReason, delayMs: number): Promise<void>;
  /** Charges `delivery` with its handler's failure (`text`): a retry after a backoff, or dead. */
  failed(delivery: Delivery, text: string, permanent?: boolean): Promise<void>;
}

/** A batch under way: what ran, what left, and the handler running. */
interface BatchState {
  /** When the batch asked for its transaction (the guard's trace counts from it). */
  readonly started: number;
  /** The deliveries whose handlers returned, with what to record for each. */
  readonly ran: BatchEntry[];
  /** The trace of each delivery in `ran` (the guard's shared silent one when nobody listens). */
  readonly traces: Trace[];
  /** Deliveries handed to the worker while the batch ran: no longer the batch's. */
  readonly departed: Set<Delivery>;
  /** The delivery whose handler is running, whether it ran first in the transaction, and what it threw. */
  current: Delivery | undefined;
  currentFirst: boolean;
  thrown: { error: unknown } | undefined;
  /** Set once the batch has an outcome: nothing leaves it after that. */
  over: boolean;
}

/** A batch that starts now: nothing ran, nothing left. */
function startedBatch(): BatchState {
  return {
    started: performance.now(),
    ran: [],
    traces: [],
    departed: new Set(),
    current: undefined,
    currentFirst: false,
    thrown: undefined,
    over: false,
  };
}

/**
 * Runs `batch` (deliveries without a failure yet) in one transaction of the receipts store
 * (DeliveryBatcher): their handlers one after another, then their receipts and their `done`, one
 * commit. Deliveries that have a receipt already leave the batch at once, to run on their own
 * where their receipt decides; so does, as soon as the transaction has run the window (even while
 * a handler still runs) or the worker stops, every delivery the batch has not started: the worker
 * queues them ({@link BatchScope.handOut}) for the lanes free then, so a slow handler never keeps
 * them waiting. Resolves with what a rollback leaves: `later`, first deliveries for another batch
 * (those a failed handler's rollback took with it), and `alone`, deliveries that run on their own
 * (the batch failed in the store, or a handler that failed after others ran in the same
 * transaction, which may have left it unusable). A handler that threw or passed its deadline as
 * the transaction's first is that delivery's failure; a stop mid-run gives the batch back.
 */
export async function runBatch<Tx>(
  scope: BatchScope<Tx>,
  batch: readonly Delivery[],
  signal: AbortSignal,
): Promise<BatchLeft> {
  const { guard } = scope;
  const state = startedBatch();
  const run = new AbortController();
  const timeoutMs = guard.handlerTimeoutMs;
  const timer = setTimeout(() => {
    const at = state.current ?? batch[0]!;
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
  // What leaves is queued in this async context, not in the transaction's: a lane it starts must
  // not be taken for part of the transaction (a single-connection store would run it inside).
  const outside = new AsyncResource('webhook-idempotency.batch');
  const leave = (left: BatchLeft) => outside.runInAsyncScope(() => scope.handOut(left));
  let results: boolean[] | undefined;
  let failure: unknown;
  try {
    const work = scope.batcher.run(batch, membersOf(scope, batch, state, run.signal, leave), {
      signal: run.signal,
      timeoutMs,
    });
    work.catch(() => undefined);
    results = await Promise.race([work, ended]);
  } catch (error) {
    failure = error;
  } finally {
    state.over = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onStop);
    run.signal.removeEventListener('abort', onEnd);
  }
  if (results === undefined) return rolledBack(scope, state, batch, failure, run.signal, signal);
  committed(scope, state, results);
  return { later: [], alone: [] };
}

/** The batch committed: each delivery it ran is reported (done, or its lease lost) and released. */
function committed<Tx>(scope: BatchScope<Tx>, state: BatchState, results: boolean[]): void {
  scope.storeAnswered();
  state.ran.forEach(({ delivery }, i) => {
    scope.emit(
      results[i]
        ? { type: 'processed', delivery: refOf(delivery), replayed: false }
        : { type: 'lease-lost', delivery: refOf(delivery) },
    );
    state.traces[i]!.delivered(DeliveryOutcome.FIRST, undefined);
    void scope.settleAs(delivery, Promise.resolve());
  });
}

/**
 * The batch's work in its transaction: hands out at once the deliveries that have a receipt, then
 * runs the others' handlers one after another until the window has passed (a timer hands out the
 * rest while a slow handler still runs) or the worker stops.
 */
function membersOf<Tx>(
  scope: BatchScope<Tx>,
  batch: readonly Delivery[],
  state: BatchState,
  signal: AbortSignal,
  leave: (left: BatchLeft) => void,
) {
  const depart = (later: Delivery[], alone: Delivery[]) => {
    if (state.over || later.length + alone.length === 0) return;
    for (const delivery of [...later, ...alone]) state.departed.add(delivery);
    leave({ later, alone });
  };
  return async (transaction: unknown, known: ReadonlySet<number>): Promise<BatchEntry[]> => {
    // The window counts from the transaction's start, not from the wait for its connection.
    const opened = performance.now();
    const rest = batch.filter((d) => !known.has(d.id));
    depart(
      [],
      batch.filter((d) => known.has(d.id)),
    );
    const window = setTimeout(() => depart(rest.splice(0), []), scope.windowMs);
    window.unref?.();
    try {
      while (rest.length > 0) {
        if (
          scope.halting() ||
          (state.ran.length > 0 && performance.now() - opened > scope.windowMs)
        )
          depart(rest.splice(0), []);
        else await runMember(scope, rest.shift()!, transaction, state, signal);
      }
    } finally {
      clearTimeout(window);
    }
    state.current = undefined;
    return state.ran;
  };
}

/** Runs one delivery's handler in the batch's transaction; what it returned joins `state.ran`. */
async function runMember<Tx>(
  scope: BatchScope<Tx>,
  delivery: Delivery,
  transaction: unknown,
  state: BatchState,
  signal: AbortSignal,
): Promise<void> {
  const { guard } = scope;
  state.current = delivery;
  state.currentFirst = state.ran.length === 0;
  const key = new RequestKey(delivery.provider, delivery.externalId);
  const trace = guard.tracer.open(key, state.started, 1);
  trace.running();
  const began = performance.now();
  try {
    const value = await scope.handlers[delivery.provider]!(delivery, {
      key,
      attempts: 1,
      isRetry: false,
      transaction: transaction as Tx,
      signal,
    });
    const handlerMs = performance.now() - began;
    if (signal.aborted) throw abortReason(signal);
    state.ran.push({ delivery, response: guard.encode(value), handlerMs });
  } catch (error) {
    state.thrown = { error };
    throw error;
  }
  trace.handed();
  state.traces.push(trace);
}

/**
 * Sorts what a rolled-back batch leaves (the deliveries still its own): given back on a stop, the
 * handler's failure charged, or run again alone or in another batch.
 */
async function rolledBack<Tx>(
  scope: BatchScope<Tx>,
  state: BatchState,
  batch: readonly Delivery[],
  failure: unknown,
  run: AbortSignal,
  signal: AbortSignal,
): Promise<BatchLeft> {
  const own = batch.filter((d) => !state.departed.has(d));
  if (signal.aborted) {
    await Promise.all(own.map((d) => scope.settleAs(d, scope.release(d, 'shutdown', 0))));
    return { later: [], alone: [] };
  }
  const { current, thrown } = state;
  const timedOut = run.reason instanceof HandlerTimeout;
  // The handler's own failure, unless its connection failed under it (a StoreError the handler
  // did not throw itself): that is the store's, and every delivery of the batch runs again on its own.
  const culprit =
    current !== undefined &&
    (timedOut ||
      (thrown !== undefined && !(failure instanceof StoreError && failure !== thrown.error)))
      ? current
      : undefined;
  if (culprit !== undefined && !state.currentFirst) {
    // Others ran before it in that transaction and may have left it unusable (a statement of
    // theirs that failed and was caught, a setting): it is judged again on its own, uncharged.
    return { later: own.filter((d) => d !== culprit), alone: [culprit] };
  }
  if (culprit === undefined) {
    // The store failed the batch (or a receipt of it was written meanwhile): reported, and each
    // delivery runs again on its own, where its receipt decides.
    scope.emit({ type: 'store-error', operation: 'batch', error: failure });
    return { later: [], alone: own };
  }
  const text = errorText(timedOut ? run.reason : thrown!.error);
  const permanent = !timedOut && isPermanent(thrown!.error);
  await scope.settleAs(culprit, scope.failed(culprit, text, permanent));
  return { later: own.filter((d) => d !== culprit), alone: [] };
}

/**
 * The queue's units for what left a batch: each delivery to run alone on its own, the first
 * deliveries spread over `free` lanes (at least one batch).
 */
export function unitsOf(left: BatchLeft, free: number, batchSize: number): Delivery[][] {
  return [...left.alone.map((d) => [d]), ...batchesOf(left.later, Math.max(1, free), batchSize)];
}

/** Batchable deliveries in at most `lanes` batches of at most `batchSize`, as even as can be. */
export function batchesOf(
  first: readonly Delivery[],
  lanes: number,
  batchSize: number,
): Delivery[][] {
  if (first.length === 0 || lanes <= 0) return [];
  const size = Math.min(batchSize, Math.ceil(first.length / lanes));
  const batches: Delivery[][] = [];
  for (let i = 0; i < first.length; i += size) batches.push(first.slice(i, i + size));
  return batches;
}
