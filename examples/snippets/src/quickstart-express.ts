/** @module The quickstart on Express (docs/quickstart.md, step 3). */
// #region express
import express from 'express';
import { idempotent } from '@webhook-idempotency/express';
// #endregion express
import type { Express } from 'express';
import type { QuickstartStore } from './quickstart';

/** Step 3, Express. */
export function expressApp(store: QuickstartStore): Express {
  // #region express
  const app = express();
  app.post(
    '/webhooks/github',
    express.raw({ type: 'application/json' }), // the exact bytes, for the fingerprint
    idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }),
    (req, res) => {
      const event = JSON.parse(req.body.toString('utf8'));
      // … change your data once per delivery …
      res.json({ received: event.action, at: new Date().toISOString() });
    },
  );
  // #endregion express
  return app;
}
