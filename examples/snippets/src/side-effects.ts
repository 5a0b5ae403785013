/**
 * @module docs/side-effects.md: a stable key per outbound call. A Stripe refund through the stripe
 * SDK, a plain `fetch` with an `Idempotency-Key` header, and an email through nodemailer with a
 * Message-ID derived from the key. test/side-effects.test.ts drives each through a failed first
 * run and the provider's retry, against a local HTTP server standing in for the APIs.
 */
import type { Express } from 'express';
import type { Store } from '@webhook-idempotency/core';
// #region stripe
import express, { type NextFunction, type Request, type Response } from 'express';
import type Stripe from 'stripe';
import * as providers from '@webhook-idempotency/providers';
import { idempotent } from '@webhook-idempotency/express';
// #endregion stripe
// #region nodemailer
import type { Transporter } from 'nodemailer';
// #endregion nodemailer

/** What the Stripe app needs: the receipts store, the webhook secret, the API client. */
export interface StripeAppDeps {
  readonly store: Store<unknown>;
  readonly secret: string;
  readonly stripe: Stripe;
}

/** A refund per `charge.dispute.created`, with a key Stripe deduplicates a retried call by. */
export function refundApp({ store, secret, stripe }: StripeAppDeps): Express {
  // #region stripe
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: 'application/json' }),
    idempotent({ store, preset: providers.stripe({ secret }) }),
    async (req, res) => {
      const event = JSON.parse(req.body.toString('utf8'));
      // The same key on every retry of this event: Stripe answers a repeated call with the
      // refund it made the first time instead of refunding twice.
      const refund = await stripe.refunds.create(
        { payment_intent: event.data.object.payment_intent },
        { idempotencyKey: req.idempotency!.effectKey('refund') },
      );
      res.json({ refund: refund.id });
    },
  );
  // A Stripe error carries the API's status and headers, which Express's default error handler
  // would copy onto your answer: answer it yourself (any non-2xx leaves the receipt retryable).
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: error.message });
  });
  // #endregion stripe
  return app;
}

/** A payout through any API that honours an `Idempotency-Key` header, with plain `fetch`. */
export async function payout(
  idempotency: { effectKey(name: string): string },
  api: string,
  payee: string,
): Promise<unknown> {
  // #region fetch
  const response = await fetch(`${api}/payouts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': idempotency.effectKey('payout'),
    },
    body: JSON.stringify({ payee, amount: 1000 }),
  });
  if (!response.ok) throw new Error(`payout refused: ${response.status}`); // the retry sends the same key
  return response.json();
  // #endregion fetch
}

/** A receipt email whose Message-ID is the same on every retry of the delivery. */
export async function sendReceipt(
  idempotency: { effectKey(name: string): string },
  mailer: Transporter,
  to: string,
): Promise<void> {
  // #region nodemailer
  // SMTP has no idempotency key: a retry after a failure sends again. A Message-ID derived from
  // the key at least marks the copies as one message (threading, your own logs, a relay that
  // drops repeats); receivers do not deduplicate by it.
  await mailer.sendMail({
    from: 'billing@example.com',
    to,
    subject: 'Your receipt',
    text: 'Thank you for your payment.',
    messageId: `<${idempotency.effectKey('email:receipt')}@billing.example.com>`,
  });
  // #endregion nodemailer
}
