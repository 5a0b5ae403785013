/**
 * The Fastify plugin `fastifyIdempotency` (also the default export), the raw-body JSON parser and
 * the inbox endpoint `inbox(options)`.
 * @module @webhook-idempotency/fastify
 */
export { default, fastifyIdempotency } from './plugin';
export { inbox, type FastifyInboxOptions } from './inbox';
export { rawBodyJsonParser } from './raw-body';
export type { FastifyIdempotencyOptions, RouteIdempotencyOptions } from './types';
