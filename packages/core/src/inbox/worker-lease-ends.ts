/**
 * @module How the inbox worker runs a delivery on its own and writes what came of it back to the
 * inbox: done, a retry after a backoff, dead, or given back without a failure counted; each write
 * fenced by the lease, and a store failure left to the lease's expiry.
 */
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import { isPermanent } from './handlers';
import { giveBackLease, type InboxWorkerStore } from './inbox-store';
import type { completerOf } from './receipts-link';
import { type InboxHandler, refOf, runDelivery } from './run';
import type { Delivery, InboxEvent } from './types';
import type { GiveBackReason } from './worker-group';
import { retryDelayMs } from './worker-options';

/** What ending leases needs of its worker. */
export interface LeaseEndScope<Tx> {
  readonly inbox: InboxWorkerStore<Tx>;
  readonly guard: IdempotencyGuard<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  readonly emit: (event: InboxEvent) => void;
  readonly maxFailures: number;
  readonly backoff: Parameters<typeof retryDelayMs>[1];
  /** Marks a delivery done in its receipt's transaction, where inbox and receipts share one. */
  readonly complete: ReturnType<typeof completerOf>;
  /** Called just before a write that ends `delivery`'s lease (the lease keeper's `ending`). */
  readonly ending?: (delivery: Delivery) => void;
}

/**
 * How the worker ends the leases of single deliveries: run one ({@link LeaseEnds.processOne}), charge a
 * failure ({@link LeaseEnds.failed}), give one back ({@link LeaseEnds.giveBack}). Its methods are bound:
 * they are handed to the lanes and to the groups as they are.
 */
export class LeaseEnds<Tx> {
  /** Receipts-store failures in a row: each one pushes the deliveries it met further out. */
  private storeFailures = 0;

  constructor(private readonly scope: LeaseEndScope<Tx>) {}

  /** Runs `delivery`'s handler through its receipt and writes what came of it; never rejects but for a throwing option. */
  readonly processOne = async (delivery: Delivery, signal: AbortSignal): Promise<void> => {
    const { guard, handlers, complete, emit } = this.scope;
    const ref = refOf(delivery);
    if (delivery.failures >= this.scope.maxFailures) return this.takenOverTooOften(delivery);
    const result = await runDelivery(guard, handlers[delivery.provider]!, delivery, {
      signal,
      complete,
    });
    if (result.kind === 'processed') {
      this.storeFailures = 0;
      // Marked done in the receipt's transaction, or found taken over there: nothing left to write.
      if (result.completed !== undefined) {
        emit(
          result.completed
            ? { type: 'processed', delivery: ref, replayed: false }
            : { type: 'lease-lost', delivery: ref },
        );
        return;
      }
      if (await this.endLease(delivery, 'complete', () => this.scope.inbox.complete(delivery)))
        emit({ type: 'processed', delivery: ref, replayed: result.replayed });
      return;
    }
    // Stopped mid-run (rolled back, or no longer waited for): given back at once, free of charge.
    if (signal.aborted) return this.giveBack(delivery, 'shutdown', 0);
    if (result.kind === 'busy') {
      // Not this delivery's failure. Another run's claim: look again once it can have settled or
      // gone stale. The receipts store: back off, longer while it keeps failing.
      if (result.reason === 'store-error') return this.storeTrouble(delivery, result.error);
      return this.giveBack(delivery, 'in-progress', result.delayMs);
    }
    this.storeFailures = 0;
    return this.failed(delivery, result.text, isPermanent(result.error));
  };

  /**
   * The handler failed (`text`): retried after a backoff, or dead after `maxFailures`, or at once
   * when the failure is `permanent` (a payload its route's schema refuses).
   */
  readonly failed = async (delivery: Delivery, text: string, permanent = false): Promise<void> => {
    const { inbox, emit, maxFailures, backoff } = this.scope;
    const ref = refOf(delivery);
    if (permanent || delivery.failures + 1 >= maxFailures) {
      if (await this.endLease(delivery, 'bury', () => inbox.bury(delivery, { error: text })))
        emit({ type: 'dead', delivery: ref, error: text });
      return;
    }
    const delayMs = retryDelayMs(delivery.failures + 1, backoff);
    if (
      await this.endLease(delivery, 'retry', () => inbox.retry(delivery, { delayMs, error: text }))
    )
      emit({ type: 'retry', delivery: ref, delayMs, error: text });
  };

  /** Gives the delivery back without counting a failure: due after `delayMs`. */
  readonly giveBack = async (
    delivery: Delivery,
    reason: GiveBackReason,
    delayMs: number,
  ): Promise<void> => {
    const write = () => giveBackLease(this.scope.inbox, delivery, { delayMs });
    if (await this.endLease(delivery, 'giveBack', write))
      this.scope.emit({ type: 'given-back', delivery: refOf(delivery), reason });
  };

  /** The receipts store answered: the run of store failures is over. */
  readonly storeAnswered = (): void => {
    this.storeFailures = 0;
  };

  /**
   * Taken over after as many failures as a handler may have, the last one a worker that died
   * holding it: dead, without running again, unless its receipt shows the handler committed.
   */
  private async takenOverTooOften(delivery: Delivery): Promise<void> {
    const { inbox, guard, emit } = this.scope;
    const ref = refOf(delivery);
    let receipt: Awaited<ReturnType<typeof guard.find>>;
    try {
      receipt = await guard.find(new RequestKey(delivery.provider, delivery.externalId));
    } catch (error) {
      return this.storeTrouble(delivery, error);
    }
    if (receipt?.status === 'completed') {
      if (await this.endLease(delivery, 'complete', () => inbox.complete(delivery)))
        emit({ type: 'processed', delivery: ref, replayed: true });
      return;
    }
    const text = `LeaseExpired: dead after ${delivery.failures} failures, the last one a worker that stopped holding it`;
    if (await this.endLease(delivery, 'bury', () => inbox.bury(delivery, { error: text })))
      emit({ type: 'dead', delivery: ref, error: text });
  }

  /** The receipts store failed this delivery (not its handler): back off without counting a failure. */
  private storeTrouble(delivery: Delivery, error: unknown): Promise<void> {
    this.scope.emit({
      type: 'store-error',
      operation: 'receipts',
      error,
      delivery: refOf(delivery),
    });
    return this.giveBack(
      delivery,
      'store-error',
      retryDelayMs(++this.storeFailures, this.scope.backoff),
    );
  }

  /** A write that ends the lease; a store failure leaves the lease to expire, and another lease finishes the job. */
  private async endLease(
    delivery: Delivery,
    operation: string,
    write: () => Promise<boolean>,
  ): Promise<boolean> {
    this.scope.ending?.(delivery);
    try {
      const ok = await write();
      if (!ok) this.scope.emit({ type: 'lease-lost', delivery: refOf(delivery) });
      return ok;
    } catch (error) {
      this.scope.emit({ type: 'store-error', operation, error, delivery: refOf(delivery) });
      return false;
    }
  }
}
