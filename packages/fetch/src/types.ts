/** @module Public types of the fetch adapter: its options and the guarded handler's shape. */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';

/**
 * Options of {@link withIdempotency}: the one options shape of every adapter, with the `Request`
 * in the callbacks (`key`, `provider`, `verify`), plus the request body limit this adapter
 * enforces itself, since no framework reads the body before it.
 */
export interface FetchIdempotencyOptions<Tx = unknown> extends IdempotencyOptions<Request, Tx> {
  /**
   * The provider's id for this delivery, from the `Request`. Returning
   * `request.headers.get(name)` as it is works: its `null` for an absent header counts as no key,
   * like `undefined` and `''` (answered 400 `ERR_IDEMPOTENCY_KEY_MISSING`, or handed on with
   * `onMissingKey: 'passthrough'`). Required without `preset`.
   * @example
   * key: (request) => request.headers.get('x-github-delivery')
   */
  key?: IdempotencyOptions<Request, Tx>['key'];
  /**
   * Largest request body read, in bytes: a larger one is answered `413` before the guard runs,
   * whether `Content-Length` announces it or a chunked body grows past it. Defaults to 1 MiB.
   */
  maxRequestBytes?: number;
}

/**
 * The route handler {@link withIdempotency} guards: the `Request` (its body still unread), what
 * the guard knows of this delivery (`undefined` when the request passed through unguarded), then
 * whatever the server passed after the request (Next.js's `{ params }`, Bun's `server`, Deno's
 * `info`), unchanged.
 */
export type FetchHandler<Args extends unknown[] = unknown[], Tx = unknown> = (
  request: Request,
  idempotency: RequestIdempotency<Tx> | undefined,
  ...args: Args
) => Response | Promise<Response>;

/**
 * The guarded handler: what a fetch-based server (or a Next.js route module) calls. It takes the
 * arguments the handler declares after the guard value, and passes any further ones through.
 */
export type GuardedHandler<Args extends unknown[] = unknown[]> = (
  request: Request,
  ...args: [...Args, ...unknown[]]
) => Promise<Response>;
