/**
 * `expressDashboard(options)`: the dashboard as Express middleware (4 and 5). Translates in (the
 * path as the browser sent it, the form), calls the core, translates out.
 * @module @webhook-idempotency/dashboard/express
 */
import { REQUEST_TOO_LARGE, sendRecord } from '@webhook-idempotency/core/adapter';
import type { NextFunction, Request, Response } from 'express';
import { createDashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { formTooLarge, readForm } from './form-body';

/**
 * The dashboard as Express middleware: it answers the requests under `basePath` and hands every
 * other one on. Mount it with or without a path (`app.use('/admin/webhooks', …)` or `app.use(…)`);
 * `basePath` is the path the browser sees either way.
 * @throws {ConfigError} at construction, naming a missing or invalid option (`authorize` is required).
 * @example
 * app.use(expressDashboard({ basePath: '/admin/webhooks', authorize: (req) => isAdmin(req), receipts: new ReceiptsAdmin(db) }));
 * @see packages/dashboard/README.md
 */
export function expressDashboard(
  options: DashboardOptions<Request>,
): (req: Request, res: Response, next: NextFunction) => void {
  const dashboard = createDashboard(options);
  return function dashboardMiddleware(req, res, next) {
    const url = req.originalUrl ?? req.url;
    if (!dashboard.matches(url)) return next();
    readForm(req, res)
      .then(async (rawBody) => {
        if (rawBody === REQUEST_TOO_LARGE) return sendRecord(res, formTooLarge);
        const record = await dashboard.handle({
          method: req.method,
          url,
          headers: req.headers,
          rawBody,
          body: req.body,
          native: req,
          secure: req.secure === true,
        });
        sendRecord(res, record);
      })
      .catch(next);
  };
}
