/**
 * Hono middleware: `idempotent(options)`, with `c.get('idempotency')` typed through Hono's variables.
 * @module @webhook-idempotency/hono
 */
export { idempotent } from './middleware';
export type { HonoIdempotencyOptions, IdempotencyEnv, IdempotencyVariables } from './types';
