/**
 * @module The contract between the HTTP engine and the adapters: what {@link Engine.begin}
 * decides for a request, and the {@link PendingRun} an adapter hands the handler's answer to.
 * Adapters only translate their framework to and from these records.
 */
import type { RequestIdempotency } from './batch-types';
import type { EngineConfig } from './options';
import type { CapturedResponse } from './response-codec';
import type { HttpRequest, HttpResponseRecord } from './types';

/**
 * A claimed delivery whose handler is running. The adapter buffers the handler's answer and
 * calls exactly one of the two methods; it flushes nothing before the returned promise settles,
 * so the receipt is written before the provider sees an answer.
 */
export interface PendingRun {
  /**
   * Records the handler's answer: a 2xx completes the receipt, anything else marks it `failed`.
   * Resolves with `null` when the handler's answer goes out unchanged, or with a guard answer to
   * send instead when the result could not be recorded (409 claim lost, 503 store failure).
   * Rejects with `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` (receipt `failed`): hand it to the framework.
   */
  finish(response: CapturedResponse): Promise<HttpResponseRecord | null>;
  /**
   * The handler threw: marks the receipt `failed` and resolves once that is written (never
   * rejects). Resolves with a guard answer to send instead of passing the error on (503 with
   * `Retry-After`) when the failure was the store's: the transaction's connection was lost under
   * the handler, whose error is then only a consequence of it. Else with `null`.
   */
  abort(error: unknown): Promise<HttpResponseRecord | null>;
  /**
   * The handler answered around the adapter (Fastify `reply.hijack()`, Koa `ctx.respond = false`),
   * so only the status that went out is known (`undefined`: the connection closed before the answer
   * finished). The provider has seen a 2xx: the run is recorded as completed with that status and
   * an empty body (in transactional mode its writes commit), so a redelivery is replayed instead of
   * running the handler again. Anything else marks the receipt `failed` with
   * `ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED`. Never rejects.
   */
  answeredAround(status: number | undefined, how: string): Promise<void>;
  /**
   * Registers what to do when the guard gives up on the run before the handler answered (the
   * transactional deadline, which bounds how long a handler may hold its transaction): `send`
   * gets the answer to write now (503 with `Retry-After`); the adapter then drops whatever the
   * handler writes later.
   */
  onExpire(send: (answer: HttpResponseRecord) => void): void;
  /**
   * Whether the run has a deadline at all (transactional mode): when `false`, `onExpire` never
   * calls back, and an adapter need not set anything up per request to wait for it.
   */
  readonly expires: boolean;
  /**
   * Calls `fn` (the adapter's `next`) in the async context of the claimed run, so that what the
   * handler does through the store's own connection (a nested guard, `guard.find`) is seen as part
   * of its transaction instead of waiting for it (a single-connection store such as better-sqlite3).
   */
  enter<T>(fn: () => T): T;
}

/** What {@link Engine.begin} decided. */
export type Decision<Tx = unknown> =
  /** Send this answer now and do not run the handler: a replay or the engine's own 400/401/409/422/503. */
  | {
      readonly action: 'respond';
      readonly response: HttpResponseRecord;
      readonly replayed: boolean;
    }
  /** Run the handler unguarded (preset pass-through, `onMissingKey`/`onStoreError: 'passthrough'`). */
  | { readonly action: 'pass' }
  /** Run the handler, capture its answer and give it to `run.finish` (or its error to `run.abort`). */
  | {
      readonly action: 'run';
      readonly idempotency: RequestIdempotency<Tx>;
      readonly run: PendingRun;
    };

/** The HTTP policy in one object, built once per middleware or plugin. */
export interface Engine<Native = unknown, Tx = unknown> {
  /** The resolved options. */
  readonly config: EngineConfig<Native, Tx>;
  /**
   * Decides what to do with one request: verify, extract the key, fingerprint, claim.
   * Rejects only with errors for the framework's own handling: `ERR_IDEMPOTENCY_RAW_BODY_MISSING`
   * or an error thrown by a user callback (`key`, `provider`, `verify`).
   */
  begin(request: HttpRequest<Native>): Promise<Decision<Tx>>;
}

/** The decision to run the handler unguarded. */
export const PASS = { action: 'pass' } as const;
