/**
 * Routing by event type: `routes(preset, { 'payment_intent.succeeded': handler, 'invoice.*': …,
 * '*': … })`, each handler's argument typed by the preset's event map (or by its Standard Schema's
 * output, with `validated(schema, handler)`). The result is a preset every adapter's
 * `idempotent()` and `inbox()` take, and a handler `createInboxWorker` and the queue bridges take.
 * Events no route takes are acknowledged before anything is claimed or stored, and counted in the
 * store (`flushIgnored` writes a store's counts at once, on shutdown) (docs/routing.md).
 * @module @webhook-idempotency/core/routes
 */
export { flushIgnored } from '../ignored';
export { EventUnrouted, PayloadInvalid } from '../errors';
export type { RouteEvent } from './events';
export { type RouteSet, type Routing, routes, validated } from './routes';
export type { SchemaIssue, SchemaResult, StandardSchema } from './schema';
export type * from './types';
