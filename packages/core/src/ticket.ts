/** @module ClaimTicket: a won claim, settled once with complete (or a transaction) or fail. */
import { ClaimLost, ErrorCode, IdempotencyError } from './errors';
import type { ReceiptWrites } from './receipt-writes';
import { type OpenTransaction, TicketTransaction } from './ticket-transaction';
import type { RunContext } from './types';

/**
 * A claim this caller won: the work for its key runs now, and the ticket is settled exactly once
 * with {@link ClaimTicket.complete}, {@link ClaimTicket.transaction} or {@link ClaimTicket.fail}.
 * An unsettled ticket leaves the receipt `processing` until it goes stale
 * (`staleAfterSeconds`) and the next delivery takes it over.
 *
 * @example
 * const claim = await guard.claim(new RequestKey('stripe', event.id));
 * if (claim.isReplay) return claim.response;
 * try {
 *   const result = await bookPayment(event);
 *   await claim.complete(result);
 *   return result;
 * } catch (error) {
 *   await claim.fail(error);
 *   throw error;
 * }
 */
export interface ClaimTicket<R = unknown, Tx = never> {
  /** Always `false`: the work has not run for this claim yet. */
  readonly isReplay: false;
  /** The key, the attempt and whether it retries an earlier one (`transaction` is `undefined`). */
  readonly context: RunContext<Tx>;
  /**
   * Records `response` as the key's result (`completed`), fenced by this claim's attempt. With
   * `transaction` (a handle of the store's own transactions) the write joins that transaction and
   * commits with it: the caller commits. Without, it is written at once.
   * @throws {ClaimLost} the claim was taken over; nothing was recorded.
   * @throws {StoreError} the store failed; the receipt stays `processing` until stale.
   * @throws whatever the codec threw encoding `response`, after the receipt was marked `failed`.
   */
  complete(response: R, transaction?: Tx): Promise<void>;
  /**
   * Runs `work` and the completion in one store transaction (exactly-once effect, DESIGN.md §7),
   * bounded by `handlerTimeoutSeconds`: at the deadline it rolls back, marks the receipt `failed`
   * and throws {@link HandlerTimeout}. A failure of `work` rolls back and marks it `failed`.
   * Needs a store with `capabilities.transactional`. `options.signal` ends it early the same way
   * (rolled back, receipt `failed`), rejecting with the signal's reason.
   */
  transaction<T extends R>(
    work: (context: RunContext<Tx>) => T | Promise<T>,
    options?: { readonly signal?: AbortSignal | undefined },
  ): Promise<T>;
  /**
   * Opens the store transaction that {@link ClaimTicket.transaction} runs its work in, for a
   * caller that learns the result later than a callback could return it (an HTTP adapter that
   * sees the handler's answer only when the framework writes it). The handle is ended exactly
   * once with {@link OpenTransaction.commit} or {@link OpenTransaction.rollback}; the handler
   * deadline (`handlerTimeoutSeconds`) runs from this call, as for `transaction`.
   * @throws {StoreError} the transaction could not begin; the receipt was marked `failed`.
   */
  begin(): Promise<OpenTransaction<R, Tx>>;
  /**
   * Marks the receipt `failed` with the error's text, so the next delivery runs the work again.
   * Never rejects: a store error is reported as an event and retried in the background. A
   * `ClaimLost` is not recorded (the claim is another worker's now).
   */
  fail(error: unknown): Promise<void>;
}

/** The guard's {@link ClaimTicket}: settled once, through its claim's {@link ReceiptWrites}. */
export class Ticket<R, Tx> implements ClaimTicket<R, Tx> {
  readonly isReplay = false;
  readonly context: RunContext<Tx>;
  private settled = false;
  /** The transaction begin() opened, if any. */
  private openTransaction: TicketTransaction<R, Tx> | undefined;

  constructor(
    private readonly writes: ReceiptWrites<R, Tx>,
    isRetry: boolean,
  ) {
    const { key, attempts } = writes;
    this.context = { key, attempts, isRetry, transaction: undefined };
    writes.trace.running();
  }

  async complete(value: R, transaction?: Tx): Promise<void> {
    this.settle('complete');
    const { writes } = this;
    writes.trace.handed();
    let response: string;
    try {
      response = writes.env.codec.encode(value);
    } catch (error) {
      await writes.fail(error);
      throw error;
    }
    await writes.complete(response, transaction);
    writes.trace.completed();
  }

  async transaction<T extends R>(
    work: (context: RunContext<Tx>) => T | Promise<T>,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const open = await this.open('transaction', options.signal);
    let value: T;
    try {
      // The deadline ends the run even when the work never settles.
      value = await Promise.race([open.enter(() => work(open.context)), open.ended]);
    } catch (error) {
      const lost = await open.rollback(error);
      throw open.endedWith ?? lost ?? error;
    }
    await open.commit(value);
    return value;
  }

  begin(): Promise<OpenTransaction<R, Tx>> {
    return this.open('begin');
  }

  async fail(error: unknown): Promise<void> {
    // After begin(): the open transaction is rolled back and the receipt marked failed (once).
    if (this.openTransaction) {
      await this.openTransaction.rollback(error);
      return;
    }
    if (this.settled) return;
    this.settled = true;
    this.writes.trace.handed();
    if (!(error instanceof ClaimLost)) await this.writes.fail(error);
  }

  private async open(
    how: 'begin' | 'transaction',
    signal?: AbortSignal,
  ): Promise<TicketTransaction<R, Tx>> {
    if (!this.writes.env.store.withTransaction) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        'This store does not support transactions (capabilities.transactional is false); the ticket is still open',
      );
    }
    this.settle(how);
    const open = new TicketTransaction(this.writes, this.context, signal);
    this.openTransaction = open;
    try {
      await open.opened;
    } catch (error) {
      await this.writes.fail(error);
      throw error;
    }
    return open;
  }

  private settle(how: string): void {
    if (this.settled) {
      const { key } = this.context;
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        `A claim ticket is settled once; ${how}() was called after it was already settled (${key.provider}/${key.externalId})`,
      );
    }
    this.settled = true;
  }
}
