/**
 * Hono middleware: `idempotent(options)`, with `c.get('idempotency')` typed through Hono's variables,
 * and the inbox endpoint `inbox(options)`.
 * @module @webhook-idempotency/hono
 */
export { idempotent } from './middleware';
export { inbox, type HonoInboxOptions } from './inbox';
export type { HonoIdempotencyOptions, IdempotencyEnv, IdempotencyVariables } from './types';
