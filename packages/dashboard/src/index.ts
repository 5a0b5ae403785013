/**
 * The dashboard's framework-free core and its types; the mounts are entry points of their own:
 * `/express`, `/fastify`, `/koa`, `/hono` and `/fetch`.
 * @module @webhook-idempotency/dashboard
 */
export { createDashboard, type Dashboard } from './dashboard';
export { InMemoryReceipts } from './memory-receipts';
export { FORM_LIMIT_BYTES } from './mounts/form-body';
export type { DashboardOptions, DashboardReceipts, DashboardRequest } from './types';
