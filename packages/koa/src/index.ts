/**
 * Koa middleware: `idempotent(options)`, the raw-body parser `rawBodyParser(options)` and the
 * inbox endpoint `inbox(options)`.
 * @module @webhook-idempotency/koa
 */
export { idempotent } from './middleware';
export { inbox, type KoaInboxOptions } from './inbox';
export { rawBodyParser } from './raw-body';
export type { KoaIdempotencyOptions, RawBodyParserOptions } from './types';
