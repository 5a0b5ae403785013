/**
 * The Fastify plugin `fastifyIdempotency` (also the default export) and the raw-body JSON parser.
 * @module @webhook-idempotency/fastify
 */
export { default, fastifyIdempotency } from './plugin';
export { rawBodyJsonParser } from './raw-body';
export type { FastifyIdempotencyOptions, RouteIdempotencyConfig } from './types';
