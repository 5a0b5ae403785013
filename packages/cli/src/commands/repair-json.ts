/**
 * @module A one-delivery repair's answer for `--json` (`inbox retry`, `outbox retry`, `redeliver`):
 * whether it changed the delivery (message), what it was, why not, and what it is now.
 */
import type { RedeliverOutcome, RetryOutcome } from '@webhook-idempotency/core/operations';
import { INBOX_ROWS, type RowTable } from '../row-tables';

/** `outcome` as `inbox retry --json`, `outbox retry --json` and `redeliver --json` print it. */
export function repairJson(outcome: RetryOutcome | RedeliverOutcome, rows: RowTable = INBOX_ROWS) {
  return {
    ...('retried' in outcome ? { retried: outcome.retried } : { redelivered: outcome.redelivered }),
    previous: outcome.before.status,
    ...('receiptForgotten' in outcome ? { receiptForgotten: outcome.receiptForgotten } : {}),
    ...('reason' in outcome ? { reason: outcome.reason } : {}),
    [rows.one]: outcome.after && rows.json(outcome.after),
  };
}
