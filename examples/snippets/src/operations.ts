/**
 * @module docs/operations.md, "The two figures": the metrics of both figures on an inbox app, and
 * the alert watcher with its senders and a receiver that checks the signature.
 * test/operations.test.ts runs each.
 */
// #region metrics
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { inbox } from '@webhook-idempotency/express';
import { instrument, observeInbox } from '@webhook-idempotency/opentelemetry';
import * as providers from '@webhook-idempotency/providers';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
// #endregion metrics
// #region watcher
import { createAlertWatcher, signedWebhook, slackWebhook } from '@webhook-idempotency/core/alerts';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
// #endregion watcher
// #region verify
import { verifyAlertSignature } from '@webhook-idempotency/core/alerts';
// #endregion verify
import type { InboxHandler, InboxWorker } from '@webhook-idempotency/core/inbox';
import type { InboxGauges } from '@webhook-idempotency/opentelemetry';
import type { SqlConnection } from '@webhook-idempotency/sql';
import express, { type Express } from 'express';

/** The inbox endpoint, its worker and the backlog gauges, all reporting to OpenTelemetry's global meter provider. */
export function instrumentedInbox(
  db: SqlConnection,
  secret: string,
  handle: InboxHandler<unknown>,
): { app: Express; worker: InboxWorker; gauges: InboxGauges } {
  const app = express();
  // #region metrics
  const deliveries = new SqlInbox(db);
  // Figure 1, the time to answer: webhook.answer.duration, from the endpoint's events.
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }),
    inbox(instrument({ inbox: deliveries, preset: providers.stripe({ secret }) })),
  );
  // Failures and dead letters: webhook.failures, webhook.inbox.dead_letters, from the worker's.
  const worker = createInboxWorker(
    instrument({ inbox: deliveries, store: new SqlStore(db), handlers: { stripe: handle } }),
  );
  // Figure 2, the backlog: webhook.inbox.delivery.stuck (and .unfinished, .oldest_age), read
  // from the table when your metrics are collected, at most every 15 s.
  const gauges = observeInbox(deliveries, {
    stuckAfterMs: 5 * 60_000, // what "longer than normal" is for your providers
    stuckAfterMsByProvider: { shopify: 15 * 60_000 },
  });
  // #endregion metrics
  return { app, worker, gauges };
}

/** The watcher beside the worker: Slack for people, a signed POST for your own tooling. */
export function startWatcher(
  db: SqlConnection,
  urls: { slack: string; ops: string },
  secret: string,
) {
  // #region watcher
  const watcher = createAlertWatcher({
    inbox: new SqlInbox(db),
    receipts: new ReceiptsAdmin(db),
    stuckAfterMs: 5 * 60_000,
    notify: [
      slackWebhook({ url: urls.slack }), // process.env.SLACK_WEBHOOK_URL
      signedWebhook({ url: urls.ops, secret }), // secret: "whsec_" + 32 random bytes in base64
    ],
    onEvent: (event) => {
      if (event.type !== 'notified') console.warn('alert watcher:', event.type);
    },
  });
  watcher.start(); // checks now, then every minute; stop() on shutdown
  // #endregion watcher
  return watcher;
}

/** A receiver of the signed alerts (your own tooling's side). */
export function alertReceiver(secret: string, received: (alert: unknown) => void): Express {
  const app = express();
  // #region verify
  app.post('/alerts', express.raw({ type: 'application/json' }), (req, res) => {
    if (!verifyAlertSignature({ headers: req.headers, body: req.body, secret })) {
      res.sendStatus(401);
      return;
    }
    const { data } = JSON.parse(req.body.toString('utf8'));
    received(data); // { id, state: 'firing' | 'resolved', condition, provider, value, summary, … }
    res.sendStatus(204);
  });
  // #endregion verify
  return app;
}
