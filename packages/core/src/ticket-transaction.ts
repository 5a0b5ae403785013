/**
 * @module TicketTransaction: the bridge from a store's callback transaction to the open handle a
 * claim ticket's `begin()` and `transaction()` hand out, bounded by the handler deadline.
 */
import { AsyncResource } from 'node:async_hooks';
import { ClaimLost, ErrorCode, HandlerTimeout, IdempotencyError, StoreError } from './errors';
import { abortReason } from './abort';
import type { OpenTransaction, Ticket } from './ticket';
import type { RunContext } from './types';

/** Calls `fn` (in the caller's context; a transaction's `enter` runs it in the one it opened in). */
function callIn<T>(fn: () => T): T {
  return fn();
}

type Stage = 'begin' | 'handler' | 'complete' | 'commit';

/**
 * {@link OpenTransaction} over the store's callback transaction: the callback waits for the
 * result `commit` hands in (or the error `rollback` does), then records it and returns, and the
 * store commits. This is the one bridge from a callback transaction to an open handle.
 * Bounded by the handler deadline (DESIGN.md §10): a failure to open or commit is a store failure
 * ({@link StoreError}); the deadline rolls back and ends it with {@link HandlerTimeout}.
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
  private result!: { resolve(value: R): void; reject(error: unknown): void };
  private finished = false;
  /** The error `rollback` was called with: the work's own failure, passed through as it is. */
  private rolledBackWith: unknown;
  /** The `failed` write of an early end, awaited by a later `rollback`. */
  private markedFailed: Promise<void> | undefined;
  private listener: ((error: unknown) => void) | undefined;
  /** The early end was written (`failed`) and is to be told to the listener, once. */
  private toNotify = false;

  constructor(
    private readonly ticket: Ticket<R, Tx>,
    signal?: AbortSignal,
  ) {
    const { env, key, attempts } = ticket;
    const timeoutMs = env.handlerTimeoutMs;
    const controller = new AbortController();
    let stage: Stage = 'begin';
    const startedAt = env.timed ? performance.now() : 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** What ended the transaction early: the deadline's HandlerTimeout, or the caller's signal's reason. */
    let cutBy: Error | undefined;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      const cut = (error: Error) => {
        if (cutBy) return;
        cutBy = error;
        controller.abort(error);
        reject(error);
      };
      timer = setTimeout(
        () => cut(new HandlerTimeout(key.provider, key.externalId, timeoutMs)),
        timeoutMs,
      );
      // The deadline bounds a transaction; it is no reason to keep a process alive that would exit.
      timer.unref?.();
      if (signal) {
        onAbort = () => cut(abortReason(signal));
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    const stopListening = () => {
      clearTimeout(timer);
      if (onAbort) signal!.removeEventListener('abort', onAbort);
    };
    // Lost to the race or not, it never goes unobserved.
    deadline.catch(() => undefined);
    const result = new Promise<R>((resolve, reject) => {
      this.result = { resolve, reject };
    });
    let open!: () => void;
    const begun = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Called on a later tick, so a store that throws synchronously rejects like one that rejects.
    const done = Promise.resolve().then(() =>
      env.store.withTransaction!(
        async (transaction) => {
          stage = 'handler';
          if (env.timed) ticket.mark = performance.now();
          this.context = { ...ticket.context, transaction };
          // The handler runs in the async context the transaction opened in (as
          // AsyncResource.bind would, without the deprecated accessor it defines on every
          // bound function: about 20 µs per delivery on Node 20).
          const scope = new AsyncResource('webhook-idempotency.transaction');
          this.enter = (fn) => scope.runInAsyncScope(fn);
          open();
          let value: R;
          try {
            value = await result;
          } finally {
            if (env.timed) ticket.handed();
          }
          // A result handed in after the transaction ended (the deadline) is never recorded: the
          // handle may already be another transaction's connection.
          if (controller.signal.aborted || this.endedWith !== undefined)
            throw cutBy ?? new HandlerTimeout(key.provider, key.externalId, timeoutMs);
          stage = 'complete';
          await ticket.record(env.codec.encode(value), transaction);
          stage = 'commit';
          return value;
        },
        { signal: controller.signal, timeoutMs },
      ),
    );
    this.settled = Promise.race([done, deadline]).then(
      () => {
        stopListening();
        return undefined;
      },
      (error: unknown) => {
        stopListening();
        if (controller.signal.aborted) {
          if (!(cutBy instanceof HandlerTimeout)) return cutBy;
          if (env.timed) {
            const durationMs = performance.now() - startedAt;
            env.emit({ type: 'handler-timeout', key, attempts, timeoutMs, durationMs });
          }
          return cutBy;
        }
        if ((stage === 'begin' || stage === 'commit') && !(error instanceof IdempotencyError)) {
          const operation = stage === 'begin' ? 'begin transaction' : 'commit';
          if (env.timed) {
            const durationMs = performance.now() - (stage === 'begin' ? startedAt : ticket.mark);
            env.emit({ type: 'store-error', key, operation, error, durationMs });
          }
          return new StoreError(operation, error);
        }
        // The store ended the transaction while the handler ran (a lost connection): a store
        // failure, answered 503, unless it is the error the caller rolled back with. A store that
        // knew its connection failed under the work says so with a StoreError of its own (the
        // work's error as its cause), even when the work failed first because of it.
        const lostConnection = error instanceof StoreError && error !== this.rolledBackWith;
        if (
          stage === 'handler' &&
          error !== this.rolledBackWith &&
          (lostConnection || !(error instanceof IdempotencyError))
        ) {
          if (env.timed) {
            const durationMs = performance.now() - ticket.mark;
            const cause = lostConnection ? (error as StoreError).cause : error;
            env.emit({
              type: 'store-error',
              key,
              operation: 'transaction',
              error: cause,
              durationMs,
            });
          }
          return lostConnection ? error : new StoreError('transaction', error);
        }
        return error ?? new Error('the transaction failed');
      },
    );
    // Whichever lost the race settles unobserved.
    done.catch(() => undefined);
    // Open once the callback runs; an end before that is a failed begin.
    this.opened = Promise.race([
      begun,
      this.settled.then((error) => Promise.reject(error ?? new Error('the transaction ended'))),
    ]);
    // Open, but ended before commit/rollback: the deadline (or the store) ended it.
    this.ended = this.settled.then((error) => {
      if (stage !== 'begin' && error !== undefined && !this.finished) {
        this.endedWith = error;
        this.markedFailed = this.ticket.markFailed(error).then(() => {
          this.toNotify = true;
          this.notify();
        });
        throw error;
      }
      return new Promise<never>(() => undefined);
    });
    this.opened.catch(() => undefined);
    this.ended.catch(() => undefined);
  }

  async commit(response: R): Promise<void> {
    if (this.finished) {
      throw new IdempotencyError(
        ErrorCode.CONFIG,
        `An open transaction is ended once; commit() was called after it had ended (${this.ticket.key.provider}/${this.ticket.key.externalId})`,
      );
    }
    this.finished = true;
    this.result.resolve(response);
    const error = await this.settled;
    if (error === undefined) {
      if (this.ticket.env.timed) this.ticket.completed();
      return;
    }
    if (this.markedFailed) await this.markedFailed;
    // A lost claim is not ours to mark; anything else (encoding, the completion, the commit, the
    // deadline) leaves the receipt retryable. The write is fenced: it cannot touch a newer claim.
    else if (!(error instanceof ClaimLost)) await this.ticket.markFailed(error);
    throw error;
  }

  async rollback(error: unknown): Promise<StoreError | undefined> {
    if (this.finished) return undefined;
    this.finished = true;
    this.rolledBackWith = error;
    this.result.reject(error);
    const ended = await this.settled;
    if (this.markedFailed) await this.markedFailed;
    else if (!(error instanceof ClaimLost)) await this.ticket.markFailed(error);
    // The store failed under the work (its connection): that, not the work's error, is the answer;
    // unless the transaction had ended before (told to the onEnded listener already).
    const lost = this.endedWith === undefined && ended instanceof StoreError && ended !== error;
    return lost ? ended : undefined;
  }

  onEnded(listener: (error: unknown) => void): void {
    this.listener = listener;
    this.notify();
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
