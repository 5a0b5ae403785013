/** @module `@webhook-idempotency/express`: re-exports only. */
export { idempotencyErrors, idempotent, saveRawBody } from './middleware';
export type { IdempotentOptions } from './types';
