/** @module Public types of the Koa adapter, and the `ctx.state.idempotency` augmentation. */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';
import type { Context } from 'koa';

/** Options of `idempotent()`: the one options shape of every adapter, with Koa's `ctx` in the callbacks. */
export type KoaIdempotencyOptions<Tx = unknown> = IdempotencyOptions<Context, Tx>;

/** Options of `rawBodyParser()`. */
export interface RawBodyParserOptions {
  /**
   * Largest request body read, in bytes; a larger one is answered 413 before the guard runs,
   * whether `Content-Length` announces it or a chunked body grows past it. Defaults to 1 MiB.
   */
  maxRequestBytes?: number;
  /**
   * The former name of `maxRequestBytes`, still accepted.
   * @deprecated Use `maxRequestBytes`, the name every adapter uses. Giving both is refused.
   */
  limit?: number;
}

declare module 'koa' {
  interface DefaultState {
    /** Set by `idempotent()` while the handler runs for a claimed delivery: key, attempt, transaction. `undefined` otherwise. */
    idempotency?: RequestIdempotency;
  }
}
