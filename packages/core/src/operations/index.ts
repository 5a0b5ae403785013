/**
 * The operator's rules, written once for every tool that repairs (the `webhook-idempotency` CLI,
 * the dashboard, a script of your own): release a stuck receipt claim and forget a finished
 * receipt, over any receipts admin ({@link ReceiptRepairs}); retry, redeliver and retry every dead
 * delivery, over any inbox store; the window of a receipts status report ({@link finishedWindow}).
 * Every write is a compare-and-set on what the operator saw.
 * @module @webhook-idempotency/core/operations
 */
export { formatAge } from './age';
export {
  type ForgetsReceipts,
  type LeftAsItIs,
  movedSince,
  type RedeliverOutcome,
  redeliverDelivery,
  type RetryDeadOptions,
  type RetryDeadResult,
  retryDeadDeliveries,
  retryDelivery,
  type RetryOutcome,
  type SeenOption,
} from './inbox-repairs';
export {
  type ExpectedClaim,
  type ForgetOptions,
  type ForgetResult,
  forgetReceipt,
  isClaimSeen,
  type ReceiptRepairs,
  type ReleaseOptions,
  type ReleaseResult,
  releaseReceipt,
  RepairableReceipts,
} from './receipt-repairs';
export { type FinishedWindow, finishedWindow } from './receipt-window';
