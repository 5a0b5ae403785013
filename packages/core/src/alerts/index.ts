/**
 * Alerts without Prometheus (docs/operations.md): a watcher that polls the inbox and the receipts
 * and notifies each incident once, with ready Slack and signed-POST notifiers.
 * @module @webhook-idempotency/core/alerts
 */
export { NotifyError } from './post';
export {
  type SenderOptions,
  type SignedWebhookOptions,
  type SlackWebhookOptions,
  signedWebhook,
  slackWebhook,
} from './senders';
export { type VerifyAlertInput, verifyAlertSignature } from './signature';
export * from './types';
export { createAlertWatcher } from './watcher';
