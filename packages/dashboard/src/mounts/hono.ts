/**
 * `honoDashboard(options)`: the dashboard as Hono middleware, over the Web-standard request.
 * @module @webhook-idempotency/dashboard/hono
 */
import type { Context, MiddlewareHandler } from 'hono';
import { createDashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { answerWeb } from './fetch';

/**
 * The dashboard as Hono middleware: it answers the requests under `basePath` and hands every
 * other one on. `authorize` gets Hono's `Context` (`c.get('user')`, `c.req.header(…)`).
 * @throws {ConfigError} at construction, naming a missing or invalid option (`authorize` is required).
 * @example
 * app.use(honoDashboard({ basePath: '/admin/webhooks', authorize: (c) => c.get('role') === 'admin', receipts }));
 * @see packages/dashboard/README.md
 */
export function honoDashboard(options: DashboardOptions<Context>): MiddlewareHandler {
  const dashboard = createDashboard(options);
  return async function dashboardMiddleware(c, next) {
    const response = await answerWeb(dashboard, c.req.raw, c);
    if (response) return response;
    await next();
  };
}
