/**
 * @module docs/providers.md#batched-deliveries: a batched preset (Adyen) on an Express route over a
 * transactional SQLite store, each item booked in its own transaction with its receipt.
 * test/batches.test.ts sends it a batch, its retry and a re-batch.
 */
// #region batch-express
import * as providers from '@webhook-idempotency/providers';
import { requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { SqlStore } from '@webhook-idempotency/sql';
// #endregion batch-express
import type Database from 'better-sqlite3';
import express, { type Express } from 'express';

/** What the route books per Adyen item. */
interface NotificationRequestItem {
  pspReference: string;
  eventCode: string;
  amount: { value: number; currency: string };
}

/** The Adyen route: `db` holds the receipts table and the app's `payments` table. */
export function adyenRoute(app: Express, db: Database.Database): void {
  // #region batch-express
  const store = new SqlStore(db); // the handle of its transactions is the Database itself
  const preset = providers.adyen({ hmacKey: process.env.ADYEN_HMAC_KEY! });

  app.post(
    '/webhooks/adyen',
    express.json(), // Adyen signs fields, not bytes: a JSON parser may run first
    idempotent({ store, preset, transactional: true }),
    async (req, res) => {
      // Each item runs once, in its own transaction with its own receipt; items already done
      // (a retried or re-batched batch) are skipped. Let an error propagate: the batch is then
      // answered non-2xx and Adyen retries it, running only the items not done.
      await req.idempotency!.batch!.each<NotificationRequestItem>(async (item, context) => {
        const tx = requireTransaction(context, store);
        tx.prepare('INSERT INTO payments (psp, event, amount) VALUES (?, ?, ?)').run(
          item.pspReference,
          item.eventCode,
          item.amount.value,
        );
      });
      res.type('text/plain').send('[accepted]'); // the answer Adyen expects
    },
  );
  // #endregion batch-express
}

/** The other batched presets, built from their secrets. */
export function batchedPresets() {
  // #region sendgrid
  const sendgridPreset = providers.sendgrid({
    publicKey: process.env.SENDGRID_WEBHOOK_PUBLIC_KEY!, // the verification key, as SendGrid shows it
  });
  // #endregion sendgrid
  // #region hubspot
  const hubspotPreset = providers.hubspot({
    clientSecret: process.env.HUBSPOT_CLIENT_SECRET!,
    targetUrl: 'https://app.example.com/webhooks/hubspot', // exactly as in the app's webhook settings
  });
  // #endregion hubspot
  return { sendgridPreset, hubspotPreset };
}

/** Meta's route: GET for the subscription's verification (answered by the preset), POST for notifications. */
export function metaRoute(
  app: Express,
  store: SqlStore<Database.Database>,
  handler: express.RequestHandler,
) {
  // #region meta
  const metaPreset = providers.meta({
    appSecret: process.env.META_APP_SECRET!,
    verifyToken: process.env.META_VERIFY_TOKEN!, // the token you typed when subscribing
  });
  const guard = idempotent({ store, preset: metaPreset });
  app.get('/webhooks/meta', guard); // hub.challenge when the token matches, 403 otherwise
  app.post('/webhooks/meta', express.raw({ type: '*/*' }), guard, handler); // answer 200
  // #endregion meta
  return metaPreset;
}
