/**
 * Express middleware: `idempotent(options)`, the raw-body keeper `saveRawBody` and the error
 * hand-over `idempotencyErrors()`.
 * @module @webhook-idempotency/express
 */
export { idempotencyErrors, idempotent, saveRawBody } from './middleware';
export type { ExpressIdempotencyOptions } from './types';
