/**
 * Express middleware: `idempotent(options)`, the raw-body keeper `saveRawBody`, the error
 * hand-over `idempotencyErrors()` and the inbox endpoint `inbox(options)`.
 * @module @webhook-idempotency/express
 */
export { idempotencyErrors, idempotent, saveRawBody } from './middleware';
export { inbox, type ExpressInboxOptions } from './inbox';
export type { ExpressIdempotencyOptions } from './types';
