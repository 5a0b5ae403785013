/** @module Public types of the Fastify adapter and the `fastify` module augmentation (route config, request). */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';
import type { FastifyRequest } from 'fastify';

/** Options of the plugin: the one options shape of every adapter, with Fastify's `request` in the callbacks. */
export interface FastifyIdempotencyOptions<Tx = unknown>
  extends IdempotencyOptions<FastifyRequest, Tx> {
  /**
   * `true`: guard every route of the encapsulation context the plugin is registered in (a route
   * opts out with `config: { idempotency: false }`). `false`: guard only routes that opt in with
   * `config: { idempotency: true | { …options } }`. Defaults to `true`.
   */
  global?: boolean;
}

/** A route's `config.idempotency`: opt out (`false`), opt in (`true`), or options over the plugin's. */
export type RouteIdempotencyOptions = boolean | Partial<IdempotencyOptions<FastifyRequest>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-route opt-in, opt-out or options of `@webhook-idempotency/fastify`. */
    idempotency?: RouteIdempotencyOptions;
  }
  interface FastifyRequest {
    /** Set while the handler runs for a claimed delivery: key, attempt, transaction. `undefined` otherwise. */
    idempotency: RequestIdempotency | undefined;
    /** The exact request bytes, kept by `rawBodyJsonParser` (or the fastify-raw-body plugin). */
    rawBody?: string | Buffer;
  }
}
