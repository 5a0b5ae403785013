/**
 * Koa middleware: `idempotent(options)` and the raw-body parser `rawBodyParser(options)`.
 * @module @webhook-idempotency/koa
 */
export { idempotent } from './middleware';
export { rawBodyParser } from './raw-body';
export type { KoaIdempotencyOptions, RawBodyParserOptions } from './types';
