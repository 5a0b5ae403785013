/**
 * @module One batch of the inbox worker: first deliveries run one after another in a single
 * transaction of the receipts store ({@link DeliveryBatcher}), and what a failure leaves is sorted
 * for the lanes: charged, run again alone, or run again in another batch.
 */
import { abortReason } from '../abort';
import { DeliveryOutcome } from '../constants';
import { HandlerTimeout, StoreError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import type { Trace } from '../trace';
import { errorText, type InboxHandler, refOf } from './run';
import type { BatchEntry, Delivery, DeliveryBatcher, InboxEvent } from './types';

/** Why a delivery goes back to `pending` without a failure counted. */
export type ReleaseReason = 'in-progress' | 'store-error' | 'shutdown' | 'surplus';

/** What a batch needs of its worker. */
export interface BatchScope<Tx> {
  readonly batcher: DeliveryBatcher;
  readonly guard: IdempotencyGuard<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  /** `batchWindowMs`: how far into its transaction a batch still starts handlers. */
  readonly windowMs: number;
  readonly emit: (event: InboxEvent) => void;
  /** True once the worker is stopping: a batch starts no more handlers. */
  halting(): boolean;
  /** The receipts store committed a batch: the run of store failures is over. */
  storeAnswered(): void;
  /** Ends `delivery`'s hold once `work` settles. */
  settleAs(delivery: Delivery, work: Promise<void>): Promise<void>;
  /** Gives `delivery` back without counting a failure, due after `delayMs`. */
  release(delivery: Delivery, reason: ReleaseReason, delayMs: number): Promise<void>;
  /** Charges `delivery` with its handler's failure (`text`): a retry after a backoff, or dead. */
  failed(delivery: Delivery, text: string): Promise<void>;
}

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
export async function runBatch<Tx>(
  scope: BatchScope<Tx>,
  batch: readonly Delivery[],
  signal: AbortSignal,
): Promise<{ later: Delivery[]; alone: Delivery[] }> {
  const { guard, handlers, emit, settleAs } = scope;
  const ran: BatchEntry[] = [];
  /** The trace of each delivery in `ran` (the guard's shared silent one when nobody listens). */
  const traces: Trace[] = [];
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
    const work = scope.batcher.run(
      batch,
      async (transaction, known) => {
        // The window counts from the transaction's start, not from the wait for its connection.
        const opened = performance.now();
        for (const delivery of batch) {
          if (known.has(delivery.id)) {
            alone.push(delivery);
            continue;
          }
          if (scope.halting() || (ran.length > 0 && performance.now() - opened > scope.windowMs)) {
            later.push(delivery);
            continue;
          }
          current = delivery;
          currentFirst = ran.length === 0;
          const key = new RequestKey(delivery.provider, delivery.externalId);
          const trace = guard.tracer.open(key, started, 1);
          trace.running();
          try {
            const value = await handlers[delivery.provider]!(delivery, {
              key,
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
          trace.handed();
          traces.push(trace);
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
    scope.storeAnswered();
    ran.forEach(({ delivery }, i) => {
      emit(
        results[i]
          ? { type: 'processed', delivery: refOf(delivery), replayed: false }
          : { type: 'lease-lost', delivery: refOf(delivery) },
      );
      traces[i]!.delivered(DeliveryOutcome.FIRST, undefined);
      void settleAs(delivery, Promise.resolve());
    });
    return { later, alone };
  }
  // Rolled back: nothing of the batch committed.
  if (signal.aborted) {
    await Promise.all(batch.map((d) => settleAs(d, scope.release(d, 'shutdown', 0))));
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
  await settleAs(culprit, scope.failed(culprit, text));
  return { later: batch.filter((d) => d !== culprit), alone: [] };
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
