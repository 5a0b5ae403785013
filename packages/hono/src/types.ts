/** @module Public types of the Hono adapter: its options and the `c.get('idempotency')` variable. */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';
import type { Context } from 'hono';

/**
 * Options of `idempotent()`: the one options shape of every adapter, with Hono's `c` in the
 * callbacks, plus the request body limit this adapter enforces itself (it reads the body).
 */
export interface HonoIdempotencyOptions<Tx = unknown> extends IdempotencyOptions<Context, Tx> {
  /**
   * Largest request body read, in bytes: a larger one is answered `413` before the guard runs
   * (no signature check, no receipt), whether `Content-Length` announces it or a chunked body
   * grows past it while it is read. Defaults to 1 MiB.
   */
  maxRequestBytes?: number;
}

/**
 * The Hono variables `idempotent()` sets: `c.get('idempotency')` holds key, attempt and (in
 * transactional mode) the transaction while the handler runs for a claimed delivery, and is
 * `undefined` otherwise. Routes after the middleware get the type on their own; for `app.use`,
 * give the app `new Hono<{ Variables: IdempotencyVariables }>()`.
 */
export interface IdempotencyVariables<Tx = unknown> {
  idempotency: RequestIdempotency<Tx> | undefined;
}

/** The Hono env of the middleware: its variables. */
export interface IdempotencyEnv<Tx = unknown> {
  Variables: IdempotencyVariables<Tx>;
}
