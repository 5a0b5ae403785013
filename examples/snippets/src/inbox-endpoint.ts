/** @module docs/inbox.md: the inbox endpoint on Express over a `pg` Pool. Run by test/inbox.test.ts. */
// #region endpoint
import express from 'express';
import pg from 'pg';
import * as providers from '@webhook-idempotency/providers';
import { inbox } from '@webhook-idempotency/express';
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
// #endregion endpoint

/** The endpoint of docs/inbox.md; `DATABASE_URL` names a PostgreSQL database. */
export async function inboxApp(): Promise<{ app: express.Express; pool: pg.Pool }> {
  // #region endpoint
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await InboxSchema.createTable(pool); // the deliveries (webhook_inbox)
  await Schema.createTable(pool); // the receipts the worker runs through (webhook_receipts)

  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }), // the exact bytes: verified, then stored
    inbox({
      inbox: new SqlInbox(pool),
      preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    }),
  );
  // #endregion endpoint
  return { app, pool };
}

/** The ordering example: one customer's deliveries one at a time, in the order they arrived. */
export function orderedEndpoint(deliveries: SqlInbox): express.RequestHandler {
  // #region ordering
  return inbox({
    inbox: deliveries,
    preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    // Same customer: processed one at a time, in the order the deliveries were stored.
    orderingKey: (_req, body) => JSON.parse(body.toString('utf8')).data?.object?.customer,
    response: { status: 202, body: '{"queued":true}' },
  });
  // #endregion ordering
}

/** The group-commit example of docs/inbox.md: a group-size observer, and group commit turned off. */
export function groupCommitInboxes(
  pool: pg.Pool,
  groupSize: { record(deliveries: number): void },
): { grouped: SqlInbox; single: SqlInbox } {
  // #region group-commit
  const grouped = new SqlInbox(pool, {
    groupCommit: { groupSize: 128, onCommit: (n) => groupSize.record(n) },
  });
  const single = new SqlInbox(pool, { groupCommit: false }); // one transaction per delivery
  // #endregion group-commit
  return { grouped, single };
}

/** The backpressure example of docs/inbox.md: refuse new deliveries while the backlog is over budget. */
export function backpressuredEndpoint(deliveries: SqlInbox): express.RequestHandler {
  // #region backpressure
  return inbox({
    inbox: deliveries,
    preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
    // 503 + Retry-After for new deliveries at 5 000 unfinished or 15 minutes behind.
    backpressure: { maxPending: 5_000, maxPendingAgeMs: 15 * 60_000 },
  });
  // #endregion backpressure
}
