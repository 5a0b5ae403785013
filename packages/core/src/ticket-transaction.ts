/**
 * @module TicketTransaction, the one implementation of {@link OpenTransaction} (a claim's store
 * transaction held open for the caller): the bridge from a store's callback transaction, bounded
 * by the handler deadline. A transaction belongs to its ticket: it records through the ticket's fenced writes, and the
 * ticket's own `complete`/`fail` reach it once it is open, so that a claim is settled through one
 * object however it runs.
 */
import { AsyncResource } from 'node:async_hooks';
import { abortReason } from './abort';
import { ClaimLost, ErrorCode, HandlerTimeout, IdempotencyError, StoreError } from './errors';
import type { OpenTransaction } from './open-transaction';
import type { Trace } from './trace';
import type { RunContext, Store } from './types';

export type { OpenTransaction } from './open-transaction';

/** What a transaction needs of the ticket it was opened from: its claim's writes, trace and context. */
export interface TransactionClaim<R, Tx> {
  /** The ticket's context; the transaction's adds the open handle. */
  readonly context: RunContext<Tx>;
  readonly trace: Trace;
  readonly store: Store<Tx>;
  readonly handlerTimeoutMs: number;
  /** A result as the guard stores it (its codec). */
  encode(value: R): string;
  /** The fenced `completed` write of an encoded result, in `transaction`. */
  record(response: string, transaction: Tx): Promise<void>;
  /** The fenced `failed` write (best effort, retried in the background; never rejects). */
  markFailed(cause: unknown): Promise<void>;
}

/** A promise with its settling functions, created together (no field left unassigned). */
function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Where the transaction is: what a failure at that point is taken to be. */
type Stage = 'begin' | 'handler' | 'complete' | 'commit';

/**
 * {@link OpenTransaction} over the store's callback transaction: the callback waits for the
 * encoded result `commit` hands in (or the error `rollback` does), then records it and returns,
 * and the store commits. This is the one bridge from a callback transaction to an open handle.
 * Bounded by the handler deadline, so that a hung handler never pins a connection, a write lock
 * or row locks a takeover would wait on: a failure to open or commit is a store failure
 * ({@link StoreError}); the deadline rolls back and ends it with {@link HandlerTimeout}.
 *
 * The constructor only wires the steps together: {@link TicketTransaction.armDeadline} (the
 * deadline and the caller's signal) races {@link TicketTransaction.inStore} (the store's
 * callback, {@link TicketTransaction.inTransaction}); {@link TicketTransaction.classify} names
 * the outcome, and {@link TicketTransaction.endedEarly} acts on an end before commit/rollback.
 */
export class TicketTransaction<R, Tx> implements OpenTransaction<R, Tx> {
  /** The ticket's context until the transaction opens, then the one carrying its handle. */
  context: RunContext<Tx>;
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
  private readonly deadline = deferred<never>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onAbort: (() => void) | undefined;
  /** The encoded result `commit` hands in (or the error `rollback` does), awaited inside the transaction. */
  private readonly handedIn = deferred<string>();
  private readonly begun = deferred<void>();
  /** The async scope the transaction opened in, once it has. */
  private scope: AsyncResource | undefined;
  private finished = false;
  /** The error `rollback` was called with: the work's own failure, passed through as it is. */
  private rolledBackWith: unknown;
  /** The `failed` write of an early end, awaited by a later `rollback`. */
  private markedFailed: Promise<void> | undefined;
  private listener: ((error: unknown) => void) | undefined;
  /** The early end was written (`failed`) and is to be told to the listener, once. */
  private toNotify = false;

  constructor(
    private readonly claim: TransactionClaim<R, Tx>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.context = claim.context;
    this.startedAt = claim.trace.now();
    const deadline = this.armDeadline();
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
      this.begun.promise,
      this.settled.then((error) => Promise.reject(error ?? new Error('the transaction ended'))),
    ]);
    this.ended = this.settled.then((error) => this.endedEarly(error));
    this.opened.catch(() => undefined);
    this.ended.catch(() => undefined);
  }

  enter<T>(fn: () => T): T {
    // The handler runs in the async context the transaction opened in (as AsyncResource.bind
    // would, without the deprecated accessor it defines on every bound function).
    return this.scope ? this.scope.runInAsyncScope(fn) : fn();
  }

  async commit(response: R): Promise<void> {
    this.refuseEnded('commit');
    let text: string;
    try {
      text = this.claim.encode(response);
    } catch (error) {
      // The codec's failure rolls back like the work's: the receipt is failed with its text.
      await this.rollback(error);
      throw error;
    }
    await this.commitEncoded(text);
  }

  /**
   * @internal {@link OpenTransaction.commit} of a result already encoded (an HTTP answer, whose
   * stored text is written once): recorded inside the transaction, then committed.
   */
  async commitEncoded(text: string): Promise<void> {
    this.refuseEnded('commit');
    this.finished = true;
    this.handedIn.resolve(text);
    const error = await this.settled;
    if (error === undefined) {
      this.claim.trace.completed();
      return;
    }
    if (this.markedFailed) await this.markedFailed;
    // A lost claim is not ours to mark; anything else (the completion, the commit, the deadline)
    // leaves the receipt retryable. The write is fenced: it cannot touch a newer claim.
    else if (!(error instanceof ClaimLost)) await this.claim.markFailed(error);
    throw error;
  }

  async rollback(error: unknown): Promise<StoreError | undefined> {
    if (this.finished) return undefined;
    this.finished = true;
    this.rolledBackWith = error;
    this.handedIn.reject(error);
    const ended = await this.settled;
    if (this.markedFailed) await this.markedFailed;
    else if (!(error instanceof ClaimLost)) await this.claim.markFailed(error);
    // The store failed under the work (its connection): that, not the work's error, is the answer;
    // unless the transaction had ended before (told to the onEnded listener already).
    const lost = this.endedWith === undefined && ended instanceof StoreError && ended !== error;
    return lost ? ended : undefined;
  }

  onEnded(listener: (error: unknown) => void): void {
    this.listener = listener;
    this.notify();
  }

  private refuseEnded(how: string): void {
    if (!this.finished) return;
    const { key } = this.claim.context;
    throw new IdempotencyError(
      ErrorCode.CONFIG,
      `An open transaction is ended once; ${how}() was called after it had ended (${key.provider}/${key.externalId})`,
    );
  }

  /**
   * Step 1: the deadline, and the caller's signal. Either ends the transaction early, once
   * ({@link TicketTransaction.cut}); the promise rejects then. A signal aborted already cuts at once.
   */
  private armDeadline(): Promise<never> {
    const { key } = this.claim.context;
    const timeoutMs = this.claim.handlerTimeoutMs;
    this.timer = setTimeout(
      () => this.cut(new HandlerTimeout(key.provider, key.externalId, timeoutMs)),
      timeoutMs,
    );
    // The deadline bounds a transaction; it is no reason to keep a process alive that would exit.
    this.timer.unref?.();
    const { signal } = this;
    if (signal) {
      const onAbort = () => this.cut(abortReason(signal));
      this.onAbort = onAbort;
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    // Lost to the race or not, it never goes unobserved.
    this.deadline.promise.catch(() => undefined);
    return this.deadline.promise;
  }

  private cut(error: Error): void {
    if (this.cutBy) return;
    this.cutBy = error;
    this.controller.abort(error);
    this.deadline.reject(error);
  }

  /** Once the transaction settled, the deadline and the signal no longer matter. */
  private disarm(): void {
    clearTimeout(this.timer);
    const { signal, onAbort } = this;
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }

  /** Step 2: the store's callback transaction, asked for on a later tick (so a store that throws synchronously rejects like one that rejects). */
  private inStore(): Promise<string> {
    const { store, handlerTimeoutMs: timeoutMs } = this.claim;
    const options = { signal: this.controller.signal, timeoutMs };
    return Promise.resolve().then(() => {
      if (!store.withTransaction) throw new StoreError('begin transaction', 'no transactions');
      return store.withTransaction((transaction) => this.inTransaction(transaction), options);
    });
  }

  /** The callback: open the handle, wait for the result handed in, record it inside the transaction. */
  private async inTransaction(transaction: Tx): Promise<string> {
    const { claim } = this;
    this.stage = 'handler';
    claim.trace.running();
    this.context = { ...claim.context, transaction };
    this.scope = new AsyncResource('webhook-idempotency.transaction');
    this.begun.resolve();
    let text: string;
    try {
      text = await this.handedIn.promise;
    } finally {
      claim.trace.handed();
    }
    // A result handed in after the transaction ended (the deadline) is never recorded: the
    // handle may already be another transaction's connection.
    if (this.controller.signal.aborted || this.endedWith !== undefined) {
      const { key } = claim.context;
      throw this.cutBy ?? new HandlerTimeout(key.provider, key.externalId, claim.handlerTimeoutMs);
    }
    this.stage = 'complete';
    await claim.record(text, transaction);
    this.stage = 'commit';
    return text;
  }

  /** Step 3: what the transaction's failure is, from where it happened; reported on the trace. */
  private classify(error: unknown): unknown {
    const { trace } = this.claim;
    const { stage } = this;
    if (this.controller.signal.aborted) {
      if (this.cutBy instanceof HandlerTimeout)
        trace.timedOut(this.claim.handlerTimeoutMs, this.startedAt);
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
      this.markedFailed = this.claim.markFailed(error).then(() => {
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
