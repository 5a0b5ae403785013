/**
 * @module InMemoryReceipts: the receipts admin (`ReceiptsAdmin`'s methods, its results and its
 * refusals) over an `InMemoryStore`, so that the dashboard reads and repairs the in-memory receipts
 * as it does a SQL table. Its repairs are core's operator rules (`releaseReceipt`,
 * `forgetReceipt`) over the store's own fenced `fail` and `forget`.
 */
import {
  ConfigError,
  type InMemoryStore,
  type KeyLike,
  type ObservedReceipt,
  type Receipt,
} from '@webhook-idempotency/core';
import { renamedOption } from '@webhook-idempotency/core/adapter';
import {
  finishedWindow,
  type ReceiptRepairs,
  RepairableReceipts,
} from '@webhook-idempotency/core/operations';
import type {
  ActivityOptions,
  ActivityReport,
  AdminPurgeOptions,
  IgnoredOptions,
  IgnoredReport,
  ListOptions,
  ProviderCounts,
  ReceiptsStatus,
  ReceiptSummary,
  StatusOptions,
} from '@webhook-idempotency/sql';
import type { DashboardReceipts } from './types';

const positive = (option: string, value: unknown, allowZero = false): number => {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (!allowZero && value === 0)
  )
    throw new ConfigError(
      option,
      `must be a ${allowZero ? 'non-negative' : 'positive'} number of milliseconds, got ${String(value)}`,
    );
  return value;
};

const summary = ({
  response: _r,
  fingerprint: _f,
  ...rest
}: Receipt & { claimAgeMs: number }): ReceiptSummary => ({
  ...rest,
  // The store's times are whole milliseconds: the exact text is the Date's, to the µs.
  claimedAtText: `${rest.claimedAt.toISOString().slice(0, 23)}000Z`,
});

const finished = (r: Receipt) => r.status !== 'processing' && r.finishedAt !== null;

const HOUR = 3_600_000;

/**
 * `ReceiptsAdmin`'s operations over an `InMemoryStore` (the dashboard builds one when its
 * `receipts` option is the store). Times come from `clock`, the guard's.
 * @example
 * const receipts = new InMemoryReceipts(store);
 * await receipts.release(key, { staleAfterMs: 300_000 });
 */
export class InMemoryReceipts extends RepairableReceipts implements DashboardReceipts {
  constructor(
    private readonly store: InMemoryStore,
    private readonly clock: () => number = Date.now,
  ) {
    super();
  }

  /** Every receipt, observed now. */
  private all(): ObservedReceipt[] {
    const now = this.clock();
    return this.store.list().map((r) => ({ ...r, claimAgeMs: now - r.claimedAt.getTime() }));
  }

  async status(options: StatusOptions): Promise<ReceiptsStatus> {
    const staleAfterMs = positive('staleAfterMs', options.staleAfterMs);
    const sinceMs = positive('sinceMs', options.sinceMs);
    const now = this.clock();
    type Counts = { -readonly [K in keyof ProviderCounts]: ProviderCounts[K] };
    const byProvider = new Map<string, Counts>();
    const empty = (provider: string): Counts => ({
      provider,
      processing: 0,
      completed: 0,
      failed: 0,
      stuck: 0,
      oldestProcessingAgeMs: null as number | null,
    });
    const totals = empty('*');
    const durations: number[] = [];
    let completed = 0;
    let failed = 0;
    for (const r of this.all().sort((a, b) =>
      a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0,
    )) {
      const entry = byProvider.get(r.provider) ?? empty(r.provider);
      for (const counts of [entry, totals]) {
        counts[r.status]++;
        if (r.status === 'processing') {
          if (r.claimAgeMs >= staleAfterMs) counts.stuck++;
          counts.oldestProcessingAgeMs = Math.max(counts.oldestProcessingAgeMs ?? 0, r.claimAgeMs);
        }
      }
      byProvider.set(r.provider, entry);
      if (finished(r) && now - r.finishedAt!.getTime() <= sinceMs) {
        if (r.status === 'completed') {
          completed++;
          durations.push(Math.max(0, r.finishedAt!.getTime() - r.claimedAt.getTime()));
        } else failed++;
      }
    }
    return {
      staleAfterMs,
      providers: [...byProvider.values()],
      totals,
      window: finishedWindow({ sinceMs, completed, failed, handlerMs: durations }),
    };
  }

  async list(options: ListOptions = {}): Promise<ReceiptSummary[]> {
    const order = options.order ?? 'newest';
    const sign = order === 'oldest' ? 1 : -1;
    const statuses =
      options.status === undefined ? undefined : ([] as string[]).concat(options.status);
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new ConfigError(
        'limit',
        `must be a whole number from 1 to 10000, got ${String(limit)}`,
      );
    const now = this.clock();
    const compare = (
      a: ReceiptSummary,
      b: { claimedAt: Date; provider: string; externalId: string },
    ) =>
      sign *
      (a.claimedAt.getTime() - b.claimedAt.getTime() ||
        (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0) ||
        (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
    const since = options.sinceMs;
    return this.all()
      .map(summary)
      .filter(
        (r) =>
          (!statuses || statuses.includes(r.status)) &&
          (options.provider === undefined || r.provider === options.provider) &&
          (options.externalId === undefined || r.externalId === options.externalId) &&
          (options.stuckAfterMs === undefined ||
            (r.status === 'processing' && r.claimAgeMs >= options.stuckAfterMs)) &&
          (since === undefined ||
            now - r.claimedAt.getTime() <= since ||
            (r.finishedAt !== null && now - r.finishedAt.getTime() <= since)) &&
          (options.claimedFrom === undefined || r.claimedAt >= options.claimedFrom) &&
          (options.claimedBefore === undefined || r.claimedAt < options.claimedBefore) &&
          (options.after === undefined || compare(r, options.after) > 0),
      )
      .sort(compare)
      .slice(0, limit);
  }

  async find(key: KeyLike): Promise<ObservedReceipt | null> {
    return this.store.find(key, { now: this.clock() });
  }

  /** The store's side of the repairs: a read and its two fenced writes. */
  protected readonly repairs: ReceiptRepairs = {
    find: (key) => this.find(key),
    failClaim: (key, claim, error) => this.store.fail(key, { now: this.clock(), ...claim, error }),
    forgetClaim: async (key, claim) => this.store.forget(key, claim),
  };

  async countPurgeable(
    options: Pick<AdminPurgeOptions, 'olderThanMs' | 'provider'>,
  ): Promise<number> {
    const cutoff = this.clock() - positive('olderThanMs', options.olderThanMs, true);
    return this.all().filter(
      (r) =>
        finished(r) &&
        r.finishedAt!.getTime() <= cutoff &&
        (options.provider === undefined || r.provider === options.provider),
    ).length;
  }

  async purge(options: AdminPurgeOptions): Promise<number> {
    const olderThanMs = positive('olderThanMs', options.olderThanMs, true);
    const deleted = await this.store.purge({
      now: this.clock(),
      olderThanMs,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
    });
    if (deleted > 0) renamedOption(options, 'onChunk', 'onBatch')?.(deleted);
    return deleted;
  }

  /** The store's ignored-event counts over the whole hours of the last `sinceMs`, as `ReceiptsAdmin.ignored` reads them. */
  async ignored(options: IgnoredOptions): Promise<IgnoredReport> {
    const sinceMs = positive('sinceMs', options.sinceMs);
    const now = this.clock();
    const since = Math.floor((now - sinceMs) / HOUR) * HOUR;
    const events = await this.store.ignoredCounts({ now, since, provider: options.provider });
    const total = events.reduce((sum, row) => sum + row.count, 0);
    return { table: '(memory)', since: new Date(since), counted: true, total, events };
  }

  async activity(options: ActivityOptions): Promise<ActivityReport> {
    const sinceMs = positive('sinceMs', options.sinceMs);
    const bucketMs = positive('bucketMs', options.bucketMs);
    if (sinceMs / bucketMs > 1000)
      throw new ConfigError('bucketMs', 'must cut sinceMs into at most 1000 buckets');
    const now = this.clock();
    const first = Math.floor((now - sinceMs) / bucketMs);
    const buckets = Array.from({ length: Math.floor(now / bucketMs) - first + 1 }, (_, i) => ({
      start: new Date((first + i) * bucketMs),
      completed: 0,
      failed: 0,
      total: 0,
      max: 0,
    }));
    for (const r of this.all()) {
      if (!finished(r) || now - r.finishedAt!.getTime() > sinceMs) continue;
      const bucket = buckets[Math.floor(r.finishedAt!.getTime() / bucketMs) - first];
      if (!bucket) continue;
      if (r.status === 'completed') {
        const took = Math.max(0, r.finishedAt!.getTime() - r.claimedAt.getTime());
        bucket.completed++;
        bucket.total += took;
        bucket.max = Math.max(bucket.max, took);
      } else bucket.failed++;
    }
    return {
      sinceMs,
      bucketMs,
      now: new Date(now),
      buckets: buckets.map(({ start, completed, failed, total, max }) => ({
        start,
        completed,
        failed,
        meanHandlerMs: completed ? total / completed : null,
        maxHandlerMs: completed ? max : null,
      })),
    };
  }
}
