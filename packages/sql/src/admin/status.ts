/**
 * @module What `ReceiptsAdmin.status` computes from the rows of its three statements (counts per
 * provider and status, finished counts, handler times), here so that every dialect gives the
 * same numbers.
 */
import { ReceiptStatus } from '@webhook-idempotency/core';
import { emptyCounts, percentile } from './checks';
import type { HandlerTimes, ProviderCounts, ReceiptsStatus } from './types';
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

/** The nearest-rank percentiles of the handler times read; `null` when none was. */
function handlerTimes(rows: readonly Row[]): HandlerTimes | null {
  const sorted = rows
    .map((row) => nullableNumber(row.ms))
    .filter((ms): ms is number => ms !== null)
    .map((ms) => Math.max(0, ms))
    .sort((a, b) => a - b);
  if (!sorted.length) return null;
  return {
    sampled: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1]!,
  };
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
  return {
    staleAfterMs,
    ...providerCounts(rows.counts),
    window: {
      sinceMs,
      completed,
      failed,
      failureShare: completed + failed ? failed / (completed + failed) : null,
      handlerTime: handlerTimes(rows.durations),
    },
  };
}
