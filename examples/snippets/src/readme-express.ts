/** @module The root README's Express usage, inside a runnable app. */
import type { Express } from 'express';
import type { Store } from '@webhook-idempotency/core';
// #region express
import express from 'express';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
// #endregion express

/** Express: every route under /webhooks/github. */
export function readmeExpress(store: Store<unknown>): Express {
  // #region express
  const app = express();
  app.use(express.json({ verify: saveRawBody })); // keeps the raw bytes for signatures and fingerprints
  app.use(
    '/webhooks/github',
    idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }),
  );
  // #endregion express
  app.post('/webhooks/github', (_req, res) => void res.json({ ok: true, at: Date.now() }));
  return app;
}
