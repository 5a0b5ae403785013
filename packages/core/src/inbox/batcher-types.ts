/** @module What a batch of first deliveries run in one receipts transaction is made of (`InboxStore.batcherFor`). */
import type { Delivery } from './delivery';

/** A delivery a batch ran, and what to record for it. */
export interface BatchEntry {
  /** The delivery, under the lease it was claimed with. */
  readonly delivery: Delivery;
  /** The handler's result as the guard's codec encoded it: the receipt's stored response. */
  readonly response: string;
  /**
   * How long the delivery's own handler ran, in milliseconds (not the batch's): the receipt records
   * it as its handler time (`finished_at − claimed_at`), as a run on its own would.
   */
  readonly handlerMs: number;
}

/**
 * Runs the handlers of several leased deliveries in one transaction of the receipts store
 * ({@link InboxStore.batcherFor}); what `run` writes commits together with the handlers' writes,
 * or nothing does.
 */
export interface DeliveryBatcher {
  /**
   * One transaction: reads which of `deliveries` already have a receipt (their ids are in the
   * `known` set `work` gets; `work` leaves them out), runs `work` with the open transaction, then
   * writes a `completed` receipt (attempts 1, its entry's `handlerMs` as its handler time) for
   * each entry `work` resolved with (not every delivery: some may have left the batch), marks its
   * delivery `done` under its lease, and commits. Resolves with, per entry in order, `true` (done)
   * or `false` (the lease was lost; the receipt still commits, so whoever took the delivery over
   * replays it). Rejects, rolled back, when `work` rejects, when a receipt for one of the entries
   * was written meanwhile by another run, or when the store fails.
   */
  run(
    deliveries: readonly Delivery[],
    work: (transaction: unknown, known: ReadonlySet<number>) => Promise<readonly BatchEntry[]>,
    options: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
  ): Promise<boolean[]>;
}
