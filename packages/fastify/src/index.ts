/** @module `@webhook-idempotency/fastify`: re-exports only. */
export { idempotency } from './plugin';
export { rawBodyJsonParser } from './raw-body';
export type { FastifyIdempotencyOptions, RouteIdempotencyConfig } from './types';
