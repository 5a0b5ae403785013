/**
 * @module ClaimTicket: a won claim, settled once with complete (or a transaction) or fail. The
 * ticket is the one object that settles a claim: it holds the claim's fencing token (its attempt
 * and claim time) and writes `completed` and `failed` itself, each fenced so that a claim taken
 * over writes nothing; a transaction opened on it records through the same writes, and the
 * ticket's `complete`/`fail` reach that transaction once it is open. Every caller (`guard.run`,
 * the HTTP delivery, code holding a ticket) settles through these two verbs.
 */
import type { EffectKeys } from './effect-key';
import { ClaimLost, ErrorCode, errorText, IdempotencyError, type StoreError } from './errors';
import type { RequestKey } from './request-key';
import { storeFailure } from './store-call';
import {
  type OpenTransaction,
  TicketTransaction,
  type TransactionClaim,
} from './ticket-transaction';
import type { Trace } from './trace';
import type { Receipt, RunContext, Store } from './types';

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
   * Runs `work` and the completion in one store transaction, so that the business writes and the
   * receipt commit together or not at all (an exactly-once effect), bounded by
   * `handlerTimeoutSeconds`: at the deadline it rolls back, marks the receipt `failed` and throws
   * {@link HandlerTimeout}. A failure of `work` rolls back and marks it `failed`. Needs a store
   * with `capabilities.transactional`. `options.signal` ends it early the same way (rolled back,
   * receipt `failed`), rejecting with the signal's reason.
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

/** What every ticket of a guard shares: the store, its codec's encoding, the clock, the handler deadline. */
export interface TicketEnv<R, Tx> {
  readonly store: Store<Tx>;
  readonly encode: (value: R) => string;
  readonly clock: () => number;
  readonly handlerTimeoutMs: number;
  /** Each run's `effectKey`, under the guard's namespace. */
  readonly effectKeys: EffectKeys;
}

/** Retries of a `fail` write that met a store error, so a receipt does not sit `processing` until stale. */
const FAIL_RETRY_DELAYS_MS = [250, 1000, 4000] as const;

/** The guard's {@link ClaimTicket}: the claim's fencing token, its two writes, and its transaction once open. */
export class Ticket<R, Tx> implements ClaimTicket<R, Tx>, TransactionClaim<R, Tx> {
  readonly isReplay = false;
  readonly context: RunContext<Tx>;
  private readonly attempts: number;
  private readonly claimedAt: Date;
  private settled = false;
  /** The transaction begin() or transaction() opened, if any: `complete` and `fail` go through it. */
  private open: TicketTransaction<R, Tx> | undefined;

  constructor(
    private readonly env: TicketEnv<R, Tx>,
    readonly trace: Trace,
    key: RequestKey,
    receipt: Pick<Receipt, 'attempts' | 'claimedAt'>,
    isRetry: boolean,
  ) {
    this.attempts = receipt.attempts;
    this.claimedAt = receipt.claimedAt;
    const effectKey = env.effectKeys(key);
    this.context = { key, attempts: receipt.attempts, isRetry, transaction: undefined, effectKey };
    trace.running();
  }

  get store(): Store<Tx> {
    return this.env.store;
  }

  get handlerTimeoutMs(): number {
    return this.env.handlerTimeoutMs;
  }

  /** Whether a deadline may end the claim before it is settled: a transaction is open on it. */
  get expires(): boolean {
    return this.open !== undefined;
  }

  encode(value: R): string {
    return this.env.encode(value);
  }

  complete(value: R, transaction?: Tx): Promise<void> {
    try {
      this.settleOnce('complete');
    } catch (error) {
      return Promise.reject(error);
    }
    this.trace.handed();
    let text: string;
    try {
      text = this.env.encode(value);
    } catch (error) {
      return this.markFailed(error).then(() => Promise.reject(error));
    }
    return this.record(text, transaction, true);
  }

  /**
   * @internal Completes with a result already encoded (an HTTP answer, whose stored text is
   * written once): in the open transaction when there is one, else at once.
   */
  completeEncoded(text: string): Promise<void> {
    if (this.open) return this.open.commitEncoded(text);
    try {
      this.settleOnce('complete');
    } catch (error) {
      return Promise.reject(error);
    }
    this.trace.handed();
    return this.record(text, undefined, true);
  }

  async transaction<T extends R>(
    work: (context: RunContext<Tx>) => T | Promise<T>,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const open = await this.openTransaction('transaction', options.signal);
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
    return this.openTransaction('begin');
  }

  async fail(error: unknown): Promise<void> {
    await this.failOrLost(error);
  }

  /**
   * @internal {@link ClaimTicket.fail}, telling more: marks the receipt `failed` (after begin():
   * rolls the open transaction back, which does), and resolves with the {@link StoreError} when
   * the store lost the transaction's connection under the work (see
   * {@link OpenTransaction.rollback}), `undefined` otherwise. Never rejects.
   */
  async failOrLost(error: unknown): Promise<StoreError | undefined> {
    if (this.open) return this.open.rollback(error);
    if (this.settled) return undefined;
    this.settled = true;
    this.trace.handed();
    if (!(error instanceof ClaimLost)) await this.markFailed(error);
    return undefined;
  }

  /** Calls `fn` in the async context the work runs in: the open transaction's, else the caller's. */
  enter<T>(fn: () => T): T {
    return this.open ? this.open.enter(fn) : fn();
  }

  /**
   * The fenced `completed` write of an encoded result, joining `transaction` when given; reports
   * `completed` when `report` is set (a transaction reports it once it committed).
   * @throws {ClaimLost} the claim was taken over; nothing was written.
   * @throws {StoreError} the store failed.
   */
  record(response: string, transaction?: Tx, report = false): Promise<void> {
    const { env, trace, attempts, claimedAt } = this;
    const { key } = this.context;
    const started = trace.now();
    let written: Promise<boolean>;
    try {
      // A store's own promise passes through as it is; a store that answers with a plain value
      // (a hand-written one) still settles through the same reaction.
      written = Promise.resolve(
        env.store.complete(key, { now: env.clock(), attempts, claimedAt, response }, transaction),
      );
    } catch (error) {
      return Promise.reject(storeFailure('complete', error, trace, started));
    }
    // One reaction on the store's own promise: no promise of an async function besides it.
    return written.then(
      (ok) => {
        if (!ok) {
          trace.claimLost('complete', started);
          throw new ClaimLost(key.provider, key.externalId, attempts);
        }
        if (report) trace.completed();
      },
      (error: unknown) => {
        throw storeFailure('complete', error, trace, started);
      },
    );
  }

  /**
   * Writes `failed` with the text of `cause`. Best effort: the caller rethrows the work's error
   * whatever happens here. A store error is retried a few times in the background (the database
   * may be restarting), so the receipt does not sit `processing` until `staleAfterSeconds`; the
   * write is fenced, so a late retry cannot touch a newer claim.
   */
  async markFailed(cause: unknown, retry = 0): Promise<void> {
    const { env, trace, attempts, claimedAt } = this;
    const { key } = this.context;
    const error = errorText(cause);
    const started = trace.now();
    try {
      const ok = await env.store.fail(key, { now: env.clock(), attempts, claimedAt, error });
      if (ok) trace.failed(error, started);
      else trace.claimLost('fail', started);
    } catch (storeError) {
      trace.storeError('fail', storeError, started);
      const delay = FAIL_RETRY_DELAYS_MS[retry];
      if (delay !== undefined)
        setTimeout(() => void this.markFailed(cause, retry + 1), delay).unref?.();
    }
  }

  private async openTransaction(
    how: 'begin' | 'transaction',
    signal?: AbortSignal,
  ): Promise<TicketTransaction<R, Tx>> {
    if (!this.env.store.withTransaction) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        'This store does not support transactions (capabilities.transactional is false); the ticket is still open',
      );
    }
    this.settleOnce(how);
    const open = new TicketTransaction<R, Tx>(this, signal);
    this.open = open;
    try {
      await open.opened;
    } catch (error) {
      await this.markFailed(error);
      throw error;
    }
    return open;
  }

  private settleOnce(how: string): void {
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
