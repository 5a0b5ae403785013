/** @module ClaimTicket: a won claim, settled once with complete (or a transaction) or fail. */
import { MAX_ERROR_LENGTH } from './constants';
import { ClaimLost, ErrorCode, IdempotencyError, type StoreError } from './errors';
import type { RequestKey } from './request-key';
import { TicketTransaction } from './ticket-transaction';
import type { Codec, GuardEvent, RunContext, Store } from './types';

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

/**
 * A claim's store transaction, open until {@link OpenTransaction.commit} or
 * {@link OpenTransaction.rollback} ends it (or the handler deadline does: see
 * {@link OpenTransaction.onEnded}). Business writes go through `context.transaction`.
 *
 * @example
 * const open = await claim.begin();
 * try {
 *   await open.context.transaction.query('UPDATE orders SET paid = true WHERE id = $1', [id]);
 *   await open.commit({ paid: true }); // the receipt completes in the same transaction
 * } catch (error) {
 *   await open.rollback(error);
 * }
 */
export interface OpenTransaction<R = unknown, Tx = never> {
  /** The key, the attempt and the open transaction (`transaction` is set). */
  readonly context: RunContext<Tx>;
  /**
   * Records `response` as the key's result inside the transaction, then commits; both commit or
   * neither does. On a failure the transaction is rolled back and the receipt marked `failed`
   * (except for a lost claim, which is another worker's now).
   * @throws {ClaimLost} the claim was taken over; nothing was recorded.
   * @throws {HandlerTimeout} the deadline ended the transaction first.
   * @throws {StoreError} the completion or the commit failed.
   */
  commit(response: R): Promise<void>;
  /**
   * Rolls the transaction back and marks the receipt `failed` with the error's text. Never rejects.
   * Resolves with a {@link StoreError} when the store reports that the transaction's connection
   * failed under the work (a database restart, a cut connection): `error` was a consequence of it
   * (the handler's next statement failed), so answer a store failure (503), not the handler's
   * error. Resolves with `undefined` otherwise (and after an early end, which
   * {@link OpenTransaction.onEnded} reported).
   */
  rollback(error: unknown): Promise<StoreError | undefined>;
  /**
   * Calls `listener` once if the transaction ends before `commit` or `rollback` was called (the
   * handler deadline: a {@link HandlerTimeout}). The receipt is marked `failed` by then, and the
   * handle refuses further statements.
   */
  onEnded(listener: (error: unknown) => void): void;
  /**
   * Calls `fn` in the async context of the transaction, so that statements it issues through
   * the store's own connection without the handle (a nested guard, `guard.find`) are seen as part
   * of the transaction instead of waiting for it (single-connection stores such as better-sqlite3).
   */
  enter<T>(fn: () => T): T;
}

/** What a ticket needs from its guard: the store, the codec, the clock, the deadline, the events. */
export interface TicketEnv<R, Tx> {
  readonly store: Store<Tx>;
  readonly codec: Codec<R>;
  readonly clock: () => number;
  readonly handlerTimeoutMs: number;
  /** Whether events are listened to: only then are clocks read (`performance.now()`). */
  readonly timed: boolean;
  emit(event: GuardEvent): void;
  /** Runs one store call; what it throws becomes a `StoreError` (reported as an event). */
  call<T>(operation: string, key: RequestKey | undefined, fn: () => Promise<T>): Promise<T>;
}

/** Retries of a `fail` write that met a store error, so a receipt does not sit `processing` until stale. */
const FAIL_RETRY_DELAYS_MS = [250, 1000, 4000] as const;

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

/** The guard's {@link ClaimTicket}. */
export class Ticket<R, Tx> implements ClaimTicket<R, Tx> {
  readonly isReplay = false;
  readonly context: RunContext<Tx>;
  /** @internal The handler's run in milliseconds, once known (only when events are timed). */
  handlerMs: number | undefined;
  private settled = false;
  /** The transaction begin() opened, if any. */
  private openTransaction: TicketTransaction<R, Tx> | undefined;
  /** @internal When the claim was won (or its transaction began), then when the result was handed in (`performance.now()`; 0 untimed). */
  mark: number;

  constructor(
    /** @internal */ readonly env: TicketEnv<R, Tx>,
    /** @internal */ readonly key: RequestKey,
    /** @internal */ readonly attempts: number,
    private readonly claimedAt: Date,
    isRetry: boolean,
  ) {
    this.context = { key, attempts, isRetry, transaction: undefined };
    this.mark = env.timed ? performance.now() : 0;
  }

  async complete(value: R, transaction?: Tx): Promise<void> {
    this.settle('complete');
    if (this.env.timed) this.handed();
    let response: string;
    try {
      response = this.env.codec.encode(value);
    } catch (error) {
      await this.markFailed(error);
      throw error;
    }
    await this.record(response, transaction);
    if (this.env.timed) this.completed();
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

  private async open(
    how: 'begin' | 'transaction',
    signal?: AbortSignal,
  ): Promise<TicketTransaction<R, Tx>> {
    if (!this.env.store.withTransaction) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        'This store does not support transactions (capabilities.transactional is false); the ticket is still open',
      );
    }
    this.settle(how);
    const open = new TicketTransaction(this, signal);
    this.openTransaction = open;
    try {
      await open.opened;
    } catch (error) {
      await this.markFailed(error);
      throw error;
    }
    return open;
  }

  async fail(error: unknown): Promise<void> {
    // After begin(): the open transaction is rolled back and the receipt marked failed (once).
    if (this.openTransaction) {
      await this.openTransaction.rollback(error);
      return;
    }
    if (this.settled) return;
    this.settled = true;
    if (this.env.timed && this.handlerMs === undefined) this.handed();
    if (!(error instanceof ClaimLost)) await this.markFailed(error);
  }

  /** @internal The result (or the failure) was handed in: the handler's run ends here. */
  handed(): void {
    const now = performance.now();
    this.handlerMs = now - this.mark;
    this.mark = now;
  }

  /** @internal */
  completed(): void {
    const { key, attempts } = this;
    const handlerMs = this.handlerMs ?? 0;
    const durationMs = performance.now() - this.mark;
    this.env.emit({ type: 'completed', key, attempts, handlerMs, durationMs });
  }

  /** @internal */
  settle(how: string): void {
    if (this.settled) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        `A claim ticket is settled once; ${how}() was called after it was already settled (${this.key.provider}/${this.key.externalId})`,
      );
    }
    this.settled = true;
  }

  /** Writes `completed`, fenced by the claim; throws `ClaimLost` when it was taken over. */
  /** @internal */
  async record(response: string, transaction?: Tx): Promise<void> {
    const { env, key, attempts, claimedAt } = this;
    const started = env.timed ? performance.now() : 0;
    const ok = await env.call('complete', key, () =>
      env.store.complete(key, { now: env.clock(), attempts, claimedAt, response }, transaction),
    );
    if (!ok) {
      if (env.timed) {
        const durationMs = performance.now() - started;
        env.emit({ type: 'claim-lost', key, attempts, operation: 'complete', durationMs });
      }
      throw new ClaimLost(key.provider, key.externalId, attempts);
    }
  }

  /**
   * Best effort: the caller rethrows the work's error whatever happens here. A store error is
   * retried a few times in the background (the database may be restarting), so the receipt does
   * not sit `processing` until `staleAfterSeconds`; the write is fenced, so a late retry cannot
   * touch a newer claim.
   */
  /** @internal */
  async markFailed(cause: unknown, retry = 0): Promise<void> {
    const { env, key, attempts, claimedAt } = this;
    const error = errorText(cause);
    const started = env.timed ? performance.now() : 0;
    try {
      const ok = await env.store.fail(key, { now: env.clock(), attempts, claimedAt, error });
      if (env.timed) {
        const durationMs = performance.now() - started;
        const handlerMs = this.handlerMs ?? 0;
        env.emit(
          ok
            ? { type: 'failed', key, attempts, error, handlerMs, durationMs }
            : { type: 'claim-lost', key, attempts, operation: 'fail', durationMs },
        );
      }
    } catch (storeError) {
      if (env.timed) {
        const durationMs = performance.now() - started;
        env.emit({ type: 'store-error', key, operation: 'fail', error: storeError, durationMs });
      }
      const delay = FAIL_RETRY_DELAYS_MS[retry];
      if (delay !== undefined)
        setTimeout(() => void this.markFailed(cause, retry + 1), delay).unref?.();
    }
  }
}
