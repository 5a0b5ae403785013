/**
 * @module What `ReceiptsAdmin.status` computes from the rows of its three statements (counts per
 * provider and status, finished counts, handler times), here so that every dialect gives the
 * same numbers.
 */
import { ReceiptStatus } from '@webhook-idempotency/core';
import { finishedWindow } from '@webhook-idempotency/core/operations';
import { emptyCounts } from './checks';
import type { ProviderCounts, ReceiptsStatus } from './types';
import type { Row } from '../connections/executor';
import { nullableNumber, text } from '../receipts/rows';

const RECEIPT_STATUSES: readonly ReceiptStatus[] = Object.values(ReceiptStatus);

/** The rows each statement of `status` read. */
export interface StatusRows {
  /** Per provider and status: `n`, `stuck`, `oldest_ms`, `db_now`. */
  readonly counts: readonly Row[];
  /** Per finished status: `n`. */
  readonly finished: readonly Row[];
  /** The handler time `ms` of the most recent completed receipts. */
  readonly durations: readonly Row[];
}

/** The counts per provider, and over every provider; the stuck claims and the oldest claim's age with `processing`. */
function providerCounts(rows: readonly Row[]): Pick<ReceiptsStatus, 'providers' | 'totals'> {
  const byProvider = new Map<string, ProviderCounts>();
  const totals = { ...emptyCounts('*') };
  for (const row of rows) {
    const provider = text(row.provider);
    const status = text(row.status) as ReceiptStatus;
    const entry = { ...(byProvider.get(provider) ?? emptyCounts(provider)) };
    const n = Number(row.n);
    if (!RECEIPT_STATUSES.includes(status)) continue;
    entry[status] += n;
    totals[status] += n;
    if (status === 'processing') {
      const age = Math.max(0, Number(row.db_now) - Number(row.oldest_ms));
      const stuck = Number(row.stuck);
      entry.stuck += stuck;
      totals.stuck += stuck;
      entry.oldestProcessingAgeMs = age;
      totals.oldestProcessingAgeMs = Math.max(totals.oldestProcessingAgeMs ?? 0, age);
    }
    byProvider.set(provider, entry);
  }
  return { providers: [...byProvider.values()], totals };
}

/** The status report from its rows, judged with `staleAfterMs` over the window of `sinceMs`. */
export function statusReport(
  rows: StatusRows,
  { staleAfterMs, sinceMs }: { staleAfterMs: number; sinceMs: number },
): ReceiptsStatus {
  let completed = 0;
  let failed = 0;
  for (const row of rows.finished) {
    if (text(row.status) === 'completed') completed += Number(row.n);
    else failed += Number(row.n);
  }
  const handlerMs = rows.durations
    .map((row) => nullableNumber(row.ms))
    .filter((ms): ms is number => ms !== null)
    .map((ms) => Math.max(0, ms));
  return {
    staleAfterMs,
    ...providerCounts(rows.counts),
    window: finishedWindow({ sinceMs, completed, failed, handlerMs }),
  };
}
