/**
 * @module A one-delivery repair's answer for `--json` (`inbox retry`, `redeliver`): whether it
 * changed the delivery, what the delivery was, why not, and what it is now.
 */
import type { RedeliverOutcome, RetryOutcome } from '@webhook-idempotency/core/operations';
import { deliveryJson } from './inbox-list';

/** `outcome` as `inbox retry --json` and `redeliver --json` print it. */
export function repairJson(outcome: RetryOutcome | RedeliverOutcome) {
  return {
    ...('retried' in outcome ? { retried: outcome.retried } : { redelivered: outcome.redelivered }),
    previous: outcome.before.status,
    ...('receiptForgotten' in outcome ? { receiptForgotten: outcome.receiptForgotten } : {}),
    ...('reason' in outcome ? { reason: outcome.reason } : {}),
    delivery: outcome.after && deliveryJson(outcome.after),
  };
}
