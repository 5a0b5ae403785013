/**
 * @module How the inbox worker runs a delivery on its own and writes what came of it back to the
 * inbox: done, a retry after a backoff, dead, or given back without a failure counted; the writes
 * are the ones the outbox dispatcher makes too (lease-writes.ts), told as the inbox's events.
 */
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import { isPermanent } from './handlers';
import type { InboxWorkerStore } from './inbox-store';
import type { LeaseKeeper } from './lease-keeper';
import { lapsedTooOften, LeaseWrites } from './lease-writes';
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
  /** The keeper renewing the leases: told just before a write that ends one, asked what it reported lost. */
  readonly keeper?: Pick<LeaseKeeper<Delivery>, 'ending' | 'reportedLost'>;
}

/**
 * How the worker ends the leases of single deliveries: run one ({@link LeaseEnds.processOne}), charge a
 * failure ({@link LeaseEnds.failed}), give one back ({@link LeaseEnds.giveBack}). Its methods are bound:
 * they are handed to the lanes and to the groups as they are.
 */
export class LeaseEnds<Tx> {
  /** Receipts-store failures in a row: each one pushes the deliveries it met further out. */
  private storeFailures = 0;
  private readonly writes: LeaseWrites;

  constructor(private readonly scope: LeaseEndScope<Tx>) {
    const { emit } = scope;
    // The inbox's events: each names its delivery.
    this.writes = new LeaseWrites(
      { ...scope, store: scope.inbox },
      {
        lost: (d) => emit({ type: 'lease-lost', delivery: refOf(d) }),
        storeError: (operation, error, d) =>
          emit({ type: 'store-error', operation, error, delivery: refOf(d) }),
        dead: (d, error) => emit({ type: 'dead', delivery: refOf(d), error }),
        retry: (d, delayMs, error) => emit({ type: 'retry', delivery: refOf(d), delayMs, error }),
      },
    );
  }

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
      if (await this.writes.complete(delivery))
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
  readonly failed = (delivery: Delivery, text: string, permanent = false): Promise<void> =>
    this.writes.failed(delivery, text, permanent);

  /** Gives the delivery back without counting a failure: due after `delayMs`. */
  readonly giveBack = async (
    delivery: Delivery,
    reason: GiveBackReason,
    delayMs: number,
  ): Promise<void> => {
    if (await this.writes.giveBack(delivery, delayMs))
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
    const { guard, emit } = this.scope;
    let receipt: Awaited<ReturnType<typeof guard.find>>;
    try {
      receipt = await guard.find(new RequestKey(delivery.provider, delivery.externalId));
    } catch (error) {
      return this.storeTrouble(delivery, error);
    }
    if (receipt?.status === 'completed') {
      if (await this.writes.complete(delivery))
        emit({ type: 'processed', delivery: refOf(delivery), replayed: true });
      return;
    }
    return this.writes.bury(delivery, lapsedTooOften(delivery.failures, 'worker'));
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
}
