/** @module Public types of the NestJS adapter: module options, route options, the request both platforms share. */
import type { IncomingHttpHeaders } from 'node:http';
import type { IdempotencyOptions } from '@webhook-idempotency/core';

/**
 * What the guard reads of a Nest request on either platform: Express's `req` or Fastify's
 * `request`. With `NestFactory.create(AppModule, { rawBody: true })` both carry `rawBody`.
 */
export interface NestRequest {
  readonly method: string;
  readonly url: string;
  readonly originalUrl?: string;
  readonly headers: IncomingHttpHeaders;
  readonly body?: unknown;
  readonly rawBody?: Buffer;
  /** Set while the handler runs for a claimed delivery (also through `@IdempotencyContext()`). */
  idempotency?: unknown;
}

/** Options of `IdempotencyModule.forRoot`: the one options shape of every adapter, with the Nest request in the callbacks. */
export type NestIdempotencyOptions<Tx = unknown> = IdempotencyOptions<NestRequest, Tx>;

/** A route's own options, merged over the module's (`@Idempotent({ preset })`, `@Idempotent({ provider, key })`). */
export type RouteIdempotencyOptions = Partial<IdempotencyOptions<NestRequest>>;

/** `IdempotencyModule.forRootAsync`: the options from a factory, with its injected dependencies. */
export interface NestIdempotencyAsyncOptions {
  /** Modules whose providers `inject` names (a `ConfigModule`, a database module). */
  readonly imports?: readonly unknown[];
  /** Builds the options; may be async. Its arguments are the `inject` tokens, resolved. */
  readonly useFactory: (
    ...args: never[]
  ) => NestIdempotencyOptions<unknown> | Promise<NestIdempotencyOptions<unknown>>;
  /** Providers handed to `useFactory`, in order. */
  readonly inject?: readonly unknown[];
}
