/**
 * @module The window of a receipts status report, computed once for every receipts admin
 * (`ReceiptsAdmin` from its rows, the dashboard's admin of an `InMemoryStore` from the store): the
 * receipts that finished in the last `sinceMs`, their failure share and the nearest-rank
 * percentiles of the completed ones' handler time.
 */

/** The nearest-rank percentile `p` (0–100) of `sorted` (ascending, not empty). */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The receipts that finished in a window, as a status report gives them. */
export interface FinishedWindow {
  readonly sinceMs: number;
  readonly completed: number;
  readonly failed: number;
  /** `failed / (completed + failed)`, between 0 and 1; `null` when nothing finished. */
  readonly failureShare: number | null;
  /** Nearest-rank percentiles of the handler time; `null` when no time was given. */
  readonly handlerTime: {
    /** How many handler times the percentiles come from. */
    readonly sampled: number;
    readonly p50Ms: number;
    readonly p95Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
  } | null;
}

/**
 * The window report of `completed` and `failed` receipts finished in the last `sinceMs`, with the
 * handler times `handlerMs` (in any order) of the completed ones the admin sampled.
 * @example
 * const window = finishedWindow({ sinceMs: 3_600_000, completed: 9, failed: 1, handlerMs: [120, 80, 95] });
 * // window.failureShare === 0.1, window.handlerTime?.p50Ms === 95
 */
export function finishedWindow({
  sinceMs,
  completed,
  failed,
  handlerMs,
}: {
  sinceMs: number;
  completed: number;
  failed: number;
  handlerMs: readonly number[];
}): FinishedWindow {
  const sorted = [...handlerMs].sort((a, b) => a - b);
  return {
    sinceMs,
    completed,
    failed,
    failureShare: completed + failed ? failed / (completed + failed) : null,
    handlerTime: sorted.length
      ? {
          sampled: sorted.length,
          p50Ms: percentile(sorted, 50),
          p95Ms: percentile(sorted, 95),
          p99Ms: percentile(sorted, 99),
          maxMs: sorted[sorted.length - 1]!,
        }
      : null,
  };
}
