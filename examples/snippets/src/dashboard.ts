/**
 * @module packages/dashboard/README.md: the dashboard on Express over a SQL store's connection,
 * behind the application's own check. test/dashboard.test.ts serves it.
 */
// #region express
import express from 'express';
import { ReceiptsAdmin, SqlInbox } from '@webhook-idempotency/sql';
import { expressDashboard } from '@webhook-idempotency/dashboard/express';
// #endregion express
import type { SqlConnection } from '@webhook-idempotency/sql';

/** What the application's own login put on the request. */
type WithUser = express.Request & { user?: { role: string } };

/** The README's app: the dashboard at /admin/webhooks, for admins only. */
export function dashboardApp(pool: SqlConnection, login: express.RequestHandler): express.Express {
  const app = express();
  app.use(login);
  // #region express
  app.use(
    expressDashboard({
      basePath: '/admin/webhooks',
      authorize: (req) => (req as WithUser).user?.role === 'admin', // your own check; required
      receipts: new ReceiptsAdmin(pool), // the SQL store's connection
      inbox: new SqlInbox(pool), // inbox mode only
      staleAfterSeconds: 300, // the guard's
    }),
  );
  // #endregion express
  return app;
}
