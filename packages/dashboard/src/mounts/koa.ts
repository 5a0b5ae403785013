/**
 * `koaDashboard(options)`: the dashboard as Koa middleware (2 and 3). Translates in, calls the
 * core, translates out.
 * @module @webhook-idempotency/dashboard/koa
 */
import { REQUEST_TOO_LARGE } from '@webhook-idempotency/core/adapter';
import type { Context, Next } from 'koa';
import { createDashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { formTooLarge, readForm } from './form-body';

/**
 * The dashboard as Koa middleware: it answers the requests under `basePath` and hands every
 * other one on. `authorize` gets the `ctx`.
 * @throws {ConfigError} at construction, naming a missing or invalid option (`authorize` is required).
 * @example
 * app.use(koaDashboard({ basePath: '/admin/webhooks', authorize: (ctx) => ctx.state.user?.admin === true, receipts }));
 * @see packages/dashboard/README.md
 */
export function koaDashboard(
  options: DashboardOptions<Context>,
): (ctx: Context, next: Next) => Promise<void> {
  const dashboard = createDashboard(options);
  return async function dashboardMiddleware(ctx, next) {
    const url = ctx.originalUrl;
    if (!dashboard.matches(url)) return next();
    const parsed = (ctx.request as { body?: unknown }).body;
    const rawBody = await readForm(ctx.req, ctx.res);
    const record =
      rawBody === REQUEST_TOO_LARGE
        ? formTooLarge
        : await dashboard.handle({
            method: ctx.method,
            url,
            headers: ctx.headers,
            rawBody,
            body: parsed,
            native: ctx,
            secure: ctx.secure,
          });
    ctx.body = record.body;
    ctx.status = record.status;
    for (const [name, value] of Object.entries(record.headers)) ctx.set(name, value);
  };
}
