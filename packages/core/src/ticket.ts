/** @module ClaimTicket: a won claim, settled once with complete (or a transaction) or fail. */
import { MAX_ERROR_LENGTH } from './constants';
import { ClaimLost, ErrorCode, HandlerTimeout, IdempotencyError, StoreError } from './errors';
import type { RequestKey } from './request-key';
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
   * Needs a store with `capabilities.transactional`.
   */
  transaction<T extends R>(work: (context: RunContext<Tx>) => T | Promise<T>): Promise<T>;
  /**
   * Marks the receipt `failed` with the error's text, so the next delivery runs the work again.
   * Never rejects: a store error is reported as an event and retried in the background. A
   * `ClaimLost` is not recorded (the claim is another worker's now).
   */
  fail(error: unknown): Promise<void>;
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
  /** When the claim was won, then when the result was handed in (`performance.now()`; 0 untimed). */
  private mark: number;

  constructor(
    private readonly env: TicketEnv<R, Tx>,
    private readonly key: RequestKey,
    private readonly attempts: number,
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

  async transaction<T extends R>(work: (context: RunContext<Tx>) => T | Promise<T>): Promise<T> {
    if (!this.env.store.withTransaction) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        'This store does not support transactions (capabilities.transactional is false); the ticket is still open',
      );
    }
    this.settle('transaction');
    let value: T;
    try {
      value = await this.inTransaction(work);
    } catch (error) {
      // A lost claim is not ours to mark; anything else (the work, encoding, the transaction, the
      // deadline) leaves the receipt retryable. The write is fenced: it cannot touch a newer claim.
      if (!(error instanceof ClaimLost)) await this.markFailed(error);
      throw error;
    }
    if (this.env.timed) this.completed();
    return value;
  }

  async fail(error: unknown): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    if (this.env.timed && this.handlerMs === undefined) this.handed();
    if (!(error instanceof ClaimLost)) await this.markFailed(error);
  }

  /** The result (or the failure) was handed in: the handler's run ends here. */
  private handed(): void {
    const now = performance.now();
    this.handlerMs = now - this.mark;
    this.mark = now;
  }

  private completed(): void {
    const { key, attempts } = this;
    const handlerMs = this.handlerMs ?? 0;
    const durationMs = performance.now() - this.mark;
    this.env.emit({ type: 'completed', key, attempts, handlerMs, durationMs });
  }

  private settle(how: string): void {
    if (this.settled) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        `A claim ticket is settled once; ${how}() was called after it was already settled (${this.key.provider}/${this.key.externalId})`,
      );
    }
    this.settled = true;
  }

  /**
   * The work and the completion in one store transaction, bounded by the handler deadline
   * (DESIGN.md §10). A failure to open or commit is a store failure ({@link StoreError}); the
   * deadline rolls back and throws {@link HandlerTimeout}, even when the work never settles.
   */
  private async inTransaction<T extends R>(
    work: (context: RunContext<Tx>) => T | Promise<T>,
  ): Promise<T> {
    const { env, key, attempts } = this;
    const timeoutMs = env.handlerTimeoutMs;
    const controller = new AbortController();
    let stage: 'begin' | 'handler' | 'complete' | 'commit' = 'begin';
    const begun = env.timed ? performance.now() : 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new HandlerTimeout(key.provider, key.externalId, timeoutMs));
      }, timeoutMs);
      // The deadline bounds a transaction; it is no reason to keep a process alive that would exit.
      timer.unref?.();
    });
    const done = env.store.withTransaction!(
      async (transaction) => {
        stage = 'handler';
        if (env.timed) this.mark = performance.now();
        let result: T;
        try {
          result = await work({ ...this.context, transaction });
        } finally {
          if (env.timed) this.handed();
        }
        stage = 'complete';
        await this.record(env.codec.encode(result), transaction);
        stage = 'commit';
        return result;
      },
      { signal: controller.signal, timeoutMs },
    );
    try {
      return await Promise.race([done, deadline]);
    } catch (error) {
      if (controller.signal.aborted) {
        if (env.timed) {
          const durationMs = performance.now() - begun;
          env.emit({ type: 'handler-timeout', key, attempts, timeoutMs, durationMs });
        }
        throw error instanceof HandlerTimeout
          ? error
          : new HandlerTimeout(key.provider, key.externalId, timeoutMs);
      }
      if ((stage === 'begin' || stage === 'commit') && !(error instanceof IdempotencyError)) {
        const operation = stage === 'begin' ? 'begin transaction' : 'commit';
        if (env.timed) {
          const durationMs = performance.now() - (stage === 'begin' ? begun : this.mark);
          env.emit({ type: 'store-error', key, operation, error, durationMs });
        }
        throw new StoreError(operation, error);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      // Whichever lost the race settles unobserved.
      done.catch(() => undefined);
      deadline.catch(() => undefined);
    }
  }

  /** Writes `completed`, fenced by the claim; throws `ClaimLost` when it was taken over. */
  private async record(response: string, transaction?: Tx): Promise<void> {
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
  private async markFailed(cause: unknown, retry = 0): Promise<void> {
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
