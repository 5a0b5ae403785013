/** @module `@webhook-idempotency/koa`: re-exports only. */
export { idempotent, type IdempotentOptions } from './middleware';
