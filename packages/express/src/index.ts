/** @module `@webhook-idempotency/express`: re-exports only. */
export { idempotent, saveRawBody } from './middleware';
export type { IdempotentOptions } from './types';
