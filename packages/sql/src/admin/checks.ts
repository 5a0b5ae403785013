/** @module The option checks and small computations of `ReceiptsAdmin`, each error naming its option. */
import { ConfigError } from '@webhook-idempotency/core';
import type { ActivityBucket, ProviderCounts } from './types';

/** `value` as a positive (or, with `allowZero`, non-negative) number of milliseconds. */
export function requireMs(option: string, value: unknown, { allowZero = false } = {}): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (value === 0 && !allowZero)
  )
    throw new ConfigError(
      option,
      `must be a ${allowZero ? 'non-negative' : 'positive'} number of milliseconds, got ${String(value)}`,
    );
  return value;
}

/** `value` as a whole number from 1 to `max`. */
export function requireCount(option: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    throw new ConfigError(option, `must be a whole number from 1 to ${max}, got ${String(value)}`);
  return value;
}

/** `value` as a non-empty string. */
export function requireText(option: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new ConfigError(option, 'must be a non-empty string');
  return value;
}

/** `value` as a valid `Date`'s epoch milliseconds. */
export function requireDate(option: string, value: unknown): number {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new ConfigError(option, `must be a valid Date, got ${String(value)}`);
  return value.getTime();
}

/** A provider's counts before any row is added. */
export const emptyCounts = (provider: string): ProviderCounts => ({
  provider,
  processing: 0,
  completed: 0,
  failed: 0,
  stuck: 0,
  oldestProcessingAgeMs: null,
});

/** One row of the activity statement: a bucket number, a status and its sums. */
export interface ActivityRow {
  readonly bucket: number;
  readonly status: string;
  readonly n: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

/**
 * Every bucket of the window ending at `nowMs`, oldest first, with the rows' counts and the
 * completed receipts' handler times; what `ReceiptsAdmin.activity` and the in-memory admins share.
 */
export function toBuckets(
  rows: readonly ActivityRow[],
  { nowMs, sinceMs, bucketMs }: { nowMs: number; sinceMs: number; bucketMs: number },
): ActivityBucket[] {
  const first = Math.floor((nowMs - sinceMs) / bucketMs);
  const last = Math.floor(nowMs / bucketMs);
  const sums = new Map<number, { completed: number; failed: number; total: number; max: number }>();
  for (const row of rows) {
    const entry = sums.get(row.bucket) ?? { completed: 0, failed: 0, total: 0, max: 0 };
    if (row.status === 'completed') {
      entry.completed += row.n;
      entry.total += Math.max(0, row.totalMs);
      entry.max = Math.max(entry.max, row.maxMs);
    } else entry.failed += row.n;
    sums.set(row.bucket, entry);
  }
  const buckets: ActivityBucket[] = [];
  for (let bucket = first; bucket <= last; bucket++) {
    const entry = sums.get(bucket);
    buckets.push({
      start: new Date(bucket * bucketMs),
      completed: entry?.completed ?? 0,
      failed: entry?.failed ?? 0,
      meanHandlerMs: entry?.completed ? entry.total / entry.completed : null,
      maxHandlerMs: entry?.completed ? Math.max(0, entry.max) : null,
    });
  }
  return buckets;
}
