/**
 * @module OpenTransaction: a claim's store transaction held open for the caller, and its one
 * implementation, the bridge from a store's callback transaction bounded by the handler deadline.
 */
import { AsyncResource } from 'node:async_hooks';
import { abortReason } from './abort';
import { ClaimLost, ErrorCode, HandlerTimeout, IdempotencyError, StoreError } from './errors';
import type { ReceiptWrites } from './receipt-writes';
import type { RunContext } from './types';

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

/** Calls `fn` (in the caller's context; a transaction's `enter` runs it in the one it opened in). */
function callIn<T>(fn: () => T): T {
  return fn();
}

/** Where the transaction is: what a failure at that point is taken to be. */
type Stage = 'begin' | 'handler' | 'complete' | 'commit';

/**
 * {@link OpenTransaction} over the store's callback transaction: the callback waits for the
 * result `commit` hands in (or the error `rollback` does), then records it and returns, and the
 * store commits. This is the one bridge from a callback transaction to an open handle.
 * Bounded by the handler deadline (DESIGN.md §10): a failure to open or commit is a store failure
 * ({@link StoreError}); the deadline rolls back and ends it with {@link HandlerTimeout}.
 *
 * The constructor only wires the steps together: {@link TicketTransaction.armDeadline} (the
 * deadline and the caller's signal) races {@link TicketTransaction.inStore} (the store's
 * callback, {@link TicketTransaction.inTransaction}); {@link TicketTransaction.classify} names
 * the outcome, and {@link TicketTransaction.endedEarly} acts on an end before commit/rollback.
 */
export class TicketTransaction<R, Tx> implements OpenTransaction<R, Tx> {
  context!: RunContext<Tx>;
  enter: <T>(fn: () => T) => T = callIn;
  /** Resolves once the transaction is open and `context` is set; rejects when it could not begin. */
  readonly opened: Promise<void>;
  /** Rejects with the transaction's error if it ends before `commit`/`rollback` (never resolves). */
  readonly ended: Promise<never>;
  /** The error that ended the transaction early, once it has. */
  endedWith: unknown;
  /** `undefined` once committed, else the (classified) error the transaction ended with. */
  private readonly settled: Promise<unknown>;
  private stage: Stage = 'begin';
  /** When the transaction was asked for (`performance.now()` when traced). */
  private readonly startedAt: number;
  /** Aborted by the deadline or the caller's signal; the store's transaction listens to it. */
  private readonly controller = new AbortController();
  /** What ended the transaction early: the deadline's HandlerTimeout, or the caller's signal's reason. */
  private cutBy: Error | undefined;
  private expire!: (error: Error) => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onAbort: (() => void) | undefined;
  /** The result `commit` hands in (or the error `rollback` does), awaited inside the transaction. */
  private readonly handedIn: Promise<R>;
  private hand!: { resolve(value: R): void; reject(error: unknown): void };
  private begun!: () => void;
  private finished = false;
  /** The error `rollback` was called with: the work's own failure, passed through as it is. */
  private rolledBackWith: unknown;
  /** The `failed` write of an early end, awaited by a later `rollback`. */
  private markedFailed: Promise<void> | undefined;
  private listener: ((error: unknown) => void) | undefined;
  /** The early end was written (`failed`) and is to be told to the listener, once. */
  private toNotify = false;

  constructor(
    private readonly writes: ReceiptWrites<R, Tx>,
    /** The ticket's context; the transaction's adds the open handle. */
    private readonly claimContext: RunContext<Tx>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.startedAt = writes.trace.now();
    const deadline = this.armDeadline();
    this.handedIn = new Promise<R>((resolve, reject) => {
      this.hand = { resolve, reject };
    });
    const begun = new Promise<void>((resolve) => {
      this.begun = resolve;
    });
    const done = this.inStore();
    this.settled = Promise.race([done, deadline]).then(
      () => {
        this.disarm();
        return undefined;
      },
      (error: unknown) => {
        this.disarm();
        return this.classify(error);
      },
    );
    // Whichever lost the race settles unobserved.
    done.catch(() => undefined);
    // Open once the callback runs; an end before that is a failed begin.
    this.opened = Promise.race([
      begun,
      this.settled.then((error) => Promise.reject(error ?? new Error('the transaction ended'))),
    ]);
    this.ended = this.settled.then((error) => this.endedEarly(error));
    this.opened.catch(() => undefined);
    this.ended.catch(() => undefined);
  }

  async commit(response: R): Promise<void> {
    if (this.finished) {
      const { key } = this.claimContext;
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        `An open transaction is ended once; commit() was called after it had ended (${key.provider}/${key.externalId})`,
      );
    }
    this.finished = true;
    this.hand.resolve(response);
    const error = await this.settled;
    if (error === undefined) {
      this.writes.trace.completed();
      return;
    }
    if (this.markedFailed) await this.markedFailed;
    // A lost claim is not ours to mark; anything else (encoding, the completion, the commit, the
    // deadline) leaves the receipt retryable. The write is fenced: it cannot touch a newer claim.
    else if (!(error instanceof ClaimLost)) await this.writes.fail(error);
    throw error;
  }

  async rollback(error: unknown): Promise<StoreError | undefined> {
    if (this.finished) return undefined;
    this.finished = true;
    this.rolledBackWith = error;
    this.hand.reject(error);
    const ended = await this.settled;
    if (this.markedFailed) await this.markedFailed;
    else if (!(error instanceof ClaimLost)) await this.writes.fail(error);
    // The store failed under the work (its connection): that, not the work's error, is the answer;
    // unless the transaction had ended before (told to the onEnded listener already).
    const lost = this.endedWith === undefined && ended instanceof StoreError && ended !== error;
    return lost ? ended : undefined;
  }

  onEnded(listener: (error: unknown) => void): void {
    this.listener = listener;
    this.notify();
  }

  /**
   * Step 1: the deadline, and the caller's signal. Either ends the transaction early, once
   * ({@link TicketTransaction.cut}); the promise rejects then. A signal aborted already cuts at once.
   */
  private armDeadline(): Promise<never> {
    const { key } = this.claimContext;
    const timeoutMs = this.writes.env.handlerTimeoutMs;
    const deadline = new Promise<never>((_, reject) => {
      this.expire = reject;
    });
    this.timer = setTimeout(
      () => this.cut(new HandlerTimeout(key.provider, key.externalId, timeoutMs)),
      timeoutMs,
    );
    // The deadline bounds a transaction; it is no reason to keep a process alive that would exit.
    this.timer.unref?.();
    const { signal } = this;
    if (signal) {
      this.onAbort = () => this.cut(abortReason(signal));
      if (signal.aborted) this.onAbort();
      else signal.addEventListener('abort', this.onAbort, { once: true });
    }
    // Lost to the race or not, it never goes unobserved.
    deadline.catch(() => undefined);
    return deadline;
  }

  private cut(error: Error): void {
    if (this.cutBy) return;
    this.cutBy = error;
    this.controller.abort(error);
    this.expire(error);
  }

  /** Once the transaction settled, the deadline and the signal no longer matter. */
  private disarm(): void {
    clearTimeout(this.timer);
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
  }

  /** Step 2: the store's callback transaction, asked for on a later tick (so a store that throws synchronously rejects like one that rejects). */
  private inStore(): Promise<R> {
    const { store, handlerTimeoutMs: timeoutMs } = this.writes.env;
    const options = { signal: this.controller.signal, timeoutMs };
    return Promise.resolve().then(() =>
      store.withTransaction!((transaction) => this.inTransaction(transaction), options),
    );
  }

  /** The callback: open the handle, wait for the result handed in, record it inside the transaction. */
  private async inTransaction(transaction: Tx): Promise<R> {
    const { writes } = this;
    this.stage = 'handler';
    writes.trace.running();
    this.context = { ...this.claimContext, transaction };
    // The handler runs in the async context the transaction opened in (as
    // AsyncResource.bind would, without the deprecated accessor it defines on every
    // bound function: about 20 µs per delivery on Node 20).
    const scope = new AsyncResource('webhook-idempotency.transaction');
    this.enter = (fn) => scope.runInAsyncScope(fn);
    this.begun();
    let value: R;
    try {
      value = await this.handedIn;
    } finally {
      writes.trace.handed();
    }
    // A result handed in after the transaction ended (the deadline) is never recorded: the
    // handle may already be another transaction's connection.
    if (this.controller.signal.aborted || this.endedWith !== undefined) {
      const { key } = this.claimContext;
      throw (
        this.cutBy ?? new HandlerTimeout(key.provider, key.externalId, writes.env.handlerTimeoutMs)
      );
    }
    this.stage = 'complete';
    await writes.complete(writes.env.codec.encode(value), transaction);
    this.stage = 'commit';
    return value;
  }

  /** Step 3: what the transaction's failure is, from where it happened; reported on the trace. */
  private classify(error: unknown): unknown {
    const { trace } = this.writes;
    const { stage } = this;
    if (this.controller.signal.aborted) {
      if (this.cutBy instanceof HandlerTimeout)
        trace.timedOut(this.writes.env.handlerTimeoutMs, this.startedAt);
      return this.cutBy;
    }
    if ((stage === 'begin' || stage === 'commit') && !(error instanceof IdempotencyError)) {
      const operation = stage === 'begin' ? 'begin transaction' : 'commit';
      trace.storeError(operation, error, stage === 'begin' ? this.startedAt : trace.mark);
      return new StoreError(operation, error);
    }
    // The store ended the transaction while the handler ran (a lost connection): a store
    // failure, answered 503, unless it is the error the caller rolled back with. A store that
    // knew its connection failed under the work says so with a StoreError of its own (the
    // work's error as its cause), even when the work failed first because of it.
    const lost = error instanceof StoreError && error !== this.rolledBackWith ? error : undefined;
    if (
      stage === 'handler' &&
      error !== this.rolledBackWith &&
      (lost || !(error instanceof IdempotencyError))
    ) {
      trace.storeError('transaction', lost ? lost.cause : error, trace.mark);
      return lost ?? new StoreError('transaction', error);
    }
    // A store whose transaction checks the receipt's fence only as it commits (DynamoDB's
    // TransactWriteItems) reports a claim taken over meanwhile from the commit.
    if (stage === 'commit' && error instanceof ClaimLost) trace.claimLost('complete', trace.mark);
    return error ?? new Error('the transaction failed');
  }

  /** Step 4: open, but ended before commit/rollback (the deadline, or the store): marked failed, then told. */
  private endedEarly(error: unknown): Promise<never> {
    if (this.stage !== 'begin' && error !== undefined && !this.finished) {
      this.endedWith = error;
      this.markedFailed = this.writes.fail(error).then(() => {
        this.toNotify = true;
        this.notify();
      });
      throw error;
    }
    return new Promise<never>(() => undefined);
  }

  private notify(): void {
    if (!this.toNotify || !this.listener) return;
    this.toNotify = false;
    try {
      this.listener(this.endedWith);
    } catch {
      // The listener's own failure (an answer that can no longer be sent) is not the transaction's.
    }
  }
}
