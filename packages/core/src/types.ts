/** @module The shared vocabulary: receipts, the Store contract (store-contract.ts), outcomes and handler context. */
import type { DeliveryOutcome } from './constants';
import type { RequestKey } from './request-key';
import type { RouteEvent } from './routing/events';

export type * from './store-contract';

/** Encodes handler results for storage and decodes them for replay. Defaults to JSON. */
export interface Codec<R> {
  encode(value: R): string;
  decode(text: string): R;
}

/** What the guard hands the handler. */
export interface RunContext<Tx = never> {
  /** The key being handled. */
  readonly key: RequestKey;
  /** This run's attempt number (1 on a first delivery). */
  readonly attempts: number;
  /** True when this run took over a stale claim or retried a failed one. */
  readonly isRetry: boolean;
  /**
   * In transactional mode, the open transaction: write your business rows through it and they
   * commit together with the receipt. `undefined` otherwise.
   */
  readonly transaction: Tx | undefined;
  /**
   * A key for one outbound side effect of this run (a refund, a payout, an email), for the APIs
   * that deduplicate by a caller-given key (Stripe's `idempotencyKey`, an `Idempotency-Key`
   * header, PayPal's `PayPal-Request-Id`). Derived from the receipt's key (provider and external
   * id: a batch item's own id, a tenant's prefix), the guard's `effectKeyNamespace` and `name`
   * (`'refund'`, `'email:receipt'`), so it is the same on every retry, takeover and worker of this
   * delivery and differs for another name, event, provider or namespace. An RFC 9562 UUID
   * (version 8): 36 ASCII characters, URL- and header-safe (docs/side-effects.md).
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_EFFECT_NAME_INVALID` (500): `name` is not a
   *   string, is empty, longer than 200 characters or not valid UTF-8.
   */
  readonly effectKey: (name: string) => string;
}

/** What {@link IdempotencyGuard.run} resolves with. */
export interface Outcome<R> {
  /** What to answer: the handler's result, or on a replay the stored one. */
  readonly response: R;
  /** True when the handler did not run this time and `response` is the stored result. */
  readonly isReplay: boolean;
  /** How many times the handler has been started for this key. */
  readonly attempts: number;
}

/**
 * Things the guard reports without throwing: for logs, metrics and traces (docs/observability.md).
 * A discriminated union on `type`. Every event carries `durationMs`, the elapsed time of what it
 * reports, in milliseconds (`performance.now()`, so fractional): clocks are read only when an
 * `onEvent` listener is configured.
 *
 * Each `guard.run` call and each request an HTTP adapter guards ends with exactly one `delivered`
 * event (its outcome, total time, handler time and, over HTTP, the status); the others report the
 * steps on the way. Code that settles tickets itself (`guard.claim`) gets the step events only.
 */
export type GuardEvent =
  /** This delivery won the claim of a new key. `durationMs`: the claim's round trip to the store. */
  | {
      readonly type: 'claimed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly durationMs: number;
    }
  /**
   * This delivery took over an earlier attempt: a `failed` receipt, or (`stale: true`) a
   * `processing` claim older than `staleAfterSeconds`, whose worker is taken to have died.
   * `durationMs`: from the start of the claim to the takeover written.
   */
  | {
      readonly type: 'retried';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly stale: boolean;
      readonly durationMs: number;
    }
  /**
   * The result was recorded (`completed`). `handlerMs`: the handler's run; `durationMs`: writing
   * the receipt (in transactional mode, the completion and the commit).
   */
  | {
      readonly type: 'completed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly handlerMs: number;
      readonly durationMs: number;
    }
  /** A duplicate of a completed delivery. `durationMs`: the lookup, from the claim to the decoded stored result. */
  | {
      readonly type: 'replayed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly durationMs: number;
    }
  /** Another worker holds a fresh claim. `durationMs`: the lookup. */
  | {
      readonly type: 'in-progress';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly retryAfterSeconds: number;
      readonly durationMs: number;
    }
  /**
   * The receipt was marked `failed` (also by a background retry of that write). `handlerMs`: the
   * handler's run until it failed; `durationMs`: writing the receipt.
   */
  | {
      readonly type: 'failed';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly error: string;
      readonly handlerMs: number;
      readonly durationMs: number;
    }
  /** The id arrived again with another fingerprint. `durationMs`: the lookup. */
  | { readonly type: 'fingerprint-mismatch'; readonly key: RequestKey; readonly durationMs: number }
  /**
   * A transactional run outlived `handlerTimeoutSeconds`: rolled back, receipt marked failed.
   * `durationMs`: from the start of the transaction to the deadline.
   */
  | {
      readonly type: 'handler-timeout';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly timeoutMs: number;
      readonly durationMs: number;
    }
  /** A worker whose claim was taken over tried to record its result; the write was refused. `durationMs`: that write. */
  | {
      readonly type: 'claim-lost';
      readonly key: RequestKey;
      readonly attempts: number;
      readonly operation: 'complete' | 'fail';
      readonly durationMs: number;
    }
  /** A store call failed. `durationMs`: that call, until it failed. */
  | {
      readonly type: 'store-error';
      readonly key: RequestKey | undefined;
      readonly operation: string;
      readonly error: unknown;
      readonly durationMs: number;
    }
  /** A route set's answer before any claim: `ignored` or `refused` (docs/routing.md). */
  | RouteEvent
  /**
   * One delivery ended: emitted once per `guard.run` call and once per request an HTTP adapter
   * guarded with a valid key. `attempts`: the attempt that ran or was replayed, 0 when neither
   * (refused before a receipt was read). `durationMs`: the whole delivery (over HTTP from the
   * adapter's call, verification included, to the recorded answer); `handlerMs`: the handler's run,
   * `undefined` when it did not run. `status`: over HTTP, the status of the answer when the engine
   * knows it (`undefined` when the handler threw and the framework's error handling answers, or on
   * a pass-through); always `undefined` from `guard.run`.
   */
  | {
      readonly type: 'delivered';
      readonly key: RequestKey;
      readonly outcome: DeliveryOutcome;
      readonly attempts: number;
      readonly durationMs: number;
      readonly handlerMs: number | undefined;
      readonly status: number | undefined;
    };
