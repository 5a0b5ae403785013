/** @module The InMemoryStore's ignored-event counts: one total per provider, type and hour, bounded in number. */
import { HOUR } from './constants';
import type { IgnoredCount, IgnoredQuery, IgnoredTotal } from './store-contract';

/** Totals kept at most: the oldest hour's go first (a process's memory stays bounded). */
export const MAX_IGNORED_ROWS = 10_000;

interface Total {
  readonly provider: string;
  readonly type: string;
  readonly hour: number;
  count: number;
}

/** The totals of one InMemoryStore. */
export class IgnoredTotals {
  private readonly rows = new Map<string, Total>();

  add(counts: readonly IgnoredCount[]): void {
    for (const { provider, type, hour, count } of counts) {
      const key = `${hour}\u0000${provider}\u0000${type}`;
      const row = this.rows.get(key);
      if (row) row.count += count;
      else this.rows.set(key, { provider, type, hour, count });
    }
    // Insertion order is close to hour order: drop from the front.
    for (const key of this.rows.keys()) {
      if (this.rows.size <= MAX_IGNORED_ROWS) break;
      this.rows.delete(key);
    }
  }

  /** Drops the totals of hours that ended at or before `cutoff` (of `provider` when given). */
  purge(cutoff: number, provider: string | undefined): void {
    for (const [key, row] of this.rows) {
      if (row.hour + HOUR <= cutoff && (provider === undefined || row.provider === provider))
        this.rows.delete(key);
    }
  }

  totals({ since, provider }: IgnoredQuery): IgnoredTotal[] {
    const from = Math.floor(since / HOUR) * HOUR;
    const sums = new Map<string, { provider: string; type: string; count: number; last: number }>();
    for (const row of this.rows.values()) {
      if (row.hour < from || (provider !== undefined && row.provider !== provider)) continue;
      const key = `${row.provider}\u0000${row.type}`;
      const sum = sums.get(key);
      if (sum) {
        sum.count += row.count;
        sum.last = Math.max(sum.last, row.hour);
      } else
        sums.set(key, { provider: row.provider, type: row.type, count: row.count, last: row.hour });
    }
    return [...sums.values()]
      .map(({ last, ...total }) => ({ ...total, lastHour: new Date(last) }))
      .sort(byCount);
  }
}

/** The largest count first, then by provider and type: one order for every store. */
export function byCount(a: IgnoredTotal, b: IgnoredTotal): number {
  if (a.count !== b.count) return b.count - a.count;
  if (a.provider !== b.provider) return a.provider < b.provider ? -1 : 1;
  return a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
}
