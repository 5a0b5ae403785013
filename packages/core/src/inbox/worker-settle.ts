/**
 * @module How the inbox worker writes a delivery's outcome back to the inbox when it runs on its
 * own: done, a retry after a backoff, dead, or given back free of charge; each write fenced by
 * the lease, and a store failure left to the lease's expiry.
 */
import { RequestKey } from '../request-key';
import type { IdempotencyGuard } from '../guard';
import { type completerOf, type InboxHandler, refOf, runDelivery } from './run';
import type { Delivery, InboxEvent, InboxStore } from './types';
import type { ReleaseReason } from './worker-batch';
import { retryDelayMs } from './worker-options';

/** What the settlement needs of its worker. */
export interface SettleScope<Tx> {
  readonly inbox: InboxStore;
  readonly guard: IdempotencyGuard<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  readonly emit: (event: InboxEvent) => void;
  readonly maxAttempts: number;
  readonly backoff: Parameters<typeof retryDelayMs>[1];
  /** Marks a delivery done in its receipt's transaction, where inbox and receipts share one. */
  readonly complete: ReturnType<typeof completerOf>;
}

/** The worker's settlement of single deliveries: run one, charge a failure, give one back. */
export function settlerFor<Tx>(scope: SettleScope<Tx>) {
  const { inbox, guard, handlers, emit, maxAttempts, backoff, complete } = scope;

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
    reason: ReleaseReason,
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

  return {
    processOne,
    failed,
    release,
    /** The receipts store answered: the run of store failures is over. */
    storeAnswered: () => {
      storeFailures = 0;
    },
  };
}
