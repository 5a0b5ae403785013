/**
 * @module Trace: where every guard event is built and sent. A guard with an `onEvent` listener
 * has a live {@link Tracer} and opens a {@link Trace} per delivery (its steps, its handler's time,
 * its one `delivered` event); a guard without one shares {@link SILENT}, which reads no clock,
 * builds no event and opens no object, so the code that reports reads the same either way.
 */
import { DeliveryOutcome } from './constants';
import { ErrorCode, isIdempotencyError } from './errors';
import type { RequestKey } from './request-key';
import type { RouteEvent } from './routing/events';
import type { GuardEvent } from './types';

/** What a `refused` event says of a refusal: the provider, the event's name, the code and the issues. */
export type Refusal = Omit<Extract<RouteEvent, { type: 'refused' }>, 'type' | 'durationMs'>;

/**
 * The events of one delivery. Durations run from a `since` the caller read with
 * {@link Trace.now}; the attempt is the one the claim reported (`claimed`, `retried` or
 * `replayed`), 0 before.
 */
export interface Trace {
  /** `performance.now()` while someone listens; 0 (and no clock read) otherwise. */
  now(): number;
  /** When the handler's run started, then when its result was handed in (0 untraced). */
  readonly mark: number;
  /** The handler's run in milliseconds, once handed in (always `undefined` untraced). */
  readonly handlerMs: number | undefined;
  /** The handler starts now: the claim was won, or its transaction began. */
  running(): void;
  /** The handler's result (or failure) was handed in: its run ends now. */
  handed(): void;
  claimed(attempts: number, since: number): void;
  retried(attempts: number, stale: boolean, since: number): void;
  replayed(attempts: number, since: number): void;
  inProgress(attempts: number, retryAfterSeconds: number, since: number): void;
  mismatched(since: number): void;
  /** The result was recorded; the write is timed from the hand-in. */
  completed(): void;
  failed(error: string, since: number): void;
  claimLost(operation: 'complete' | 'fail', since: number): void;
  timedOut(timeoutMs: number, since: number): void;
  storeError(operation: string, error: unknown, since: number): void;
  /**
   * The delivery ended: its one `delivered` event, with the answer's `status` when known (nothing
   * for an outcome that is no delivery, `undefined`).
   */
  delivered(outcome: DeliveryOutcome | undefined, status: number | undefined): void;
}

/** A guard's side of its events: the clock, a {@link Trace} per delivery, and store calls outside one. */
export interface Tracer {
  now(): number;
  /**
   * The trace of one delivery of `key`, whose `delivered` event is timed from `started`.
   * `attempts` until a claim reports one: for a delivery that runs without a claim (the inbox
   * worker's batched first deliveries, attempt 1).
   */
  open(key: RequestKey, started: number, attempts?: number): Trace;
  /** A store call of no key failed (a purge). */
  storeError(operation: string, error: unknown, since: number): void;
  /** A route set took no route for the delivery: acknowledged with nothing claimed. */
  ignored(provider: string, event: string | undefined, since: number): void;
  /** A route set refused the delivery before any claim (its schema, or `unrouted: 'refuse'`). */
  refused(refusal: Refusal, since: number): void;
}

const nothing = (): void => undefined;

/** The tracer and the trace of a guard nobody listens to: one shared object that does nothing. */
export const SILENT: Tracer & Trace = {
  now: () => 0,
  mark: 0,
  handlerMs: undefined,
  running: nothing,
  handed: nothing,
  claimed: nothing,
  retried: nothing,
  replayed: nothing,
  inProgress: nothing,
  mismatched: nothing,
  completed: nothing,
  failed: nothing,
  claimLost: nothing,
  timedOut: nothing,
  storeError: nothing,
  delivered: nothing,
  ignored: nothing,
  refused: nothing,
  open: () => SILENT,
};

type Listener = (event: GuardEvent) => void;

/** The guard's tracer: {@link SILENT} without a listener. */
export function tracerFor(listener: Listener | undefined): Tracer {
  return listener ? new LiveTracer(listener) : SILENT;
}

/** Calls the listener; an observer must never change the outcome of a delivery. */
function report(listener: Listener, event: GuardEvent): void {
  try {
    listener(event);
  } catch {
    // Ignored: see above.
  }
}

class LiveTracer implements Tracer {
  constructor(private readonly listener: Listener) {}

  now(): number {
    return performance.now();
  }

  open(key: RequestKey, started: number, attempts = 0): Trace {
    return new LiveTrace(this.listener, key, started, attempts);
  }

  storeError(operation: string, error: unknown, since: number): void {
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'store-error', key: undefined, operation, error, durationMs });
  }

  ignored(provider: string, event: string | undefined, since: number): void {
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'ignored', provider, event, durationMs });
  }

  refused(refusal: Refusal, since: number): void {
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'refused', ...refusal, durationMs });
  }
}

/** The trace of one delivery with a listener: every event is built here, and reported once each. */
class LiveTrace implements Trace {
  mark = 0;
  handlerMs: number | undefined = undefined;

  constructor(
    private readonly listener: Listener,
    private readonly key: RequestKey,
    private readonly started: number,
    private attempts: number,
  ) {}

  now(): number {
    return performance.now();
  }

  running(): void {
    this.mark = performance.now();
  }

  handed(): void {
    const now = performance.now();
    this.handlerMs = now - this.mark;
    this.mark = now;
  }

  claimed(attempts: number, since: number): void {
    this.attempts = attempts;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'claimed', key: this.key, attempts, durationMs });
  }

  retried(attempts: number, stale: boolean, since: number): void {
    this.attempts = attempts;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'retried', key: this.key, attempts, stale, durationMs });
  }

  replayed(attempts: number, since: number): void {
    this.attempts = attempts;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'replayed', key: this.key, attempts, durationMs });
  }

  inProgress(attempts: number, retryAfterSeconds: number, since: number): void {
    const { key } = this;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'in-progress', key, attempts, retryAfterSeconds, durationMs });
  }

  mismatched(since: number): void {
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'fingerprint-mismatch', key: this.key, durationMs });
  }

  completed(): void {
    const { key, attempts } = this;
    const handlerMs = this.handlerMs ?? 0;
    const durationMs = performance.now() - this.mark;
    report(this.listener, { type: 'completed', key, attempts, handlerMs, durationMs });
  }

  failed(error: string, since: number): void {
    const { key, attempts } = this;
    const handlerMs = this.handlerMs ?? 0;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'failed', key, attempts, error, handlerMs, durationMs });
  }

  claimLost(operation: 'complete' | 'fail', since: number): void {
    const { key, attempts } = this;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'claim-lost', key, attempts, operation, durationMs });
  }

  timedOut(timeoutMs: number, since: number): void {
    const { key, attempts } = this;
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'handler-timeout', key, attempts, timeoutMs, durationMs });
  }

  storeError(operation: string, error: unknown, since: number): void {
    const durationMs = performance.now() - since;
    report(this.listener, { type: 'store-error', key: this.key, operation, error, durationMs });
  }

  delivered(outcome: DeliveryOutcome | undefined, status: number | undefined): void {
    if (outcome === undefined) return;
    report(this.listener, {
      type: 'delivered',
      key: this.key,
      outcome,
      attempts: this.attempts,
      durationMs: performance.now() - this.started,
      handlerMs: this.handlerMs,
      status,
    });
  }
}

/**
 * How a delivery that threw ended, from the error: `undefined` for one that never was a delivery
 * (bad input, a programmer error) when `claimed` is false.
 */
export function outcomeOf(error: unknown, claimed: boolean): DeliveryOutcome | undefined {
  switch (isIdempotencyError(error) ? error.code : undefined) {
    case ErrorCode.IN_PROGRESS:
    case ErrorCode.CLAIM_LOST:
      return DeliveryOutcome.CONFLICT;
    case ErrorCode.FINGERPRINT_MISMATCH:
      return DeliveryOutcome.MISMATCH;
    case ErrorCode.STORE:
      return DeliveryOutcome.STORE_ERROR;
    default:
      return claimed ? DeliveryOutcome.FAILED : undefined;
  }
}
