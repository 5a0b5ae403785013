/** @module InMemoryStore: the Store contract over a Map, for tests, demos and single-process workers. */
import { ReceiptStatus } from './constants';
import { purgeChunkSize } from './renamed-option';
import {
  distinctKeys,
  type InMemoryStoreOptions,
  newRow,
  observe,
  RowTable,
  resolveMemoryOptions,
  type Row,
  wholeHandlerMs,
} from './memory-store-rows';
import { IgnoredTotals } from './memory-ignored';
import type { KeyLike } from './request-key';
import type * as contract from './store-contract';

export type { InMemoryStoreOptions } from './memory-store-rows';

/**
 * Keeps receipts in this process's memory. Every operation runs to completion without yielding,
 * which makes it atomic **within one process only**: two processes (cluster workers, several
 * containers) each have their own map and would both run the handler. Use the SQL store there.
 * Memory is bounded: at most `maxReceipts` receipts (10,000 by default), dropping the
 * longest-finished first and never a `processing` one; `retentionSeconds` drops finished receipts
 * by age. No timers, nothing to close.
 *
 * @example
 * const guard = new IdempotencyGuard(new InMemoryStore());
 * // a single worker that sees 50,000 Stripe events in Stripe's 3-day redelivery window:
 * const worker = new IdempotencyGuard(new InMemoryStore({ maxReceipts: 60_000, retentionSeconds: 3 * 86_400 }));
 */
export class InMemoryStore implements contract.Store {
  readonly capabilities: contract.StoreCapabilities = {
    crossProcess: false,
    transactional: false,
    clock: 'caller',
    ignoredCounts: true,
  };
  private readonly rows = new RowTable();
  private readonly ignored = new IgnoredTotals();
  /**
   * The finished rows in the order they finished, as a list linked through the rows: the oldest
   * is the next to drop. Linking, unlinking and dropping are O(1), with no iteration over the map
   * (a Map deleted from its front and iterated again skips its deleted entries every time).
   */
  private oldest: Row | null = null;
  private newest: Row | null = null;
  /**
   * The text the last completion stored: a handler that answers every delivery alike (an
   * acknowledgement) then holds that text once, not once per receipt.
   */
  private lastResponse: string | null = null;
  private readonly maxReceipts: number;
  private readonly retentionMs: number;

  constructor(options: InMemoryStoreOptions = {}) {
    const { maxReceipts, retentionMs } = resolveMemoryOptions(options);
    this.maxReceipts = maxReceipts;
    this.retentionMs = retentionMs;
  }

  /** Adds to the ignored-event totals (at most 10,000 provider, type and hour totals, the oldest dropped first). */
  async addIgnored(counts: readonly contract.IgnoredCount[], _at: contract.At): Promise<void> {
    this.ignored.add(counts);
  }

  /** The ignored-event totals since `since`, the largest first. */
  async ignoredCounts(query: contract.IgnoredQuery): Promise<contract.IgnoredTotal[]> {
    return this.ignored.totals(query);
  }

  /** How many receipts are held. */
  get size(): number {
    return this.rows.size;
  }

  async claim(
    key: KeyLike,
    { now, fingerprint }: contract.ClaimInput,
  ): Promise<contract.ClaimResult> {
    this.dropExpired(now);
    const existing = this.rows.get(key);
    if (existing) return { won: false, receipt: observe(existing, now) };
    const row = newRow(key, {
      status: ReceiptStatus.PROCESSING,
      response: null,
      fingerprint,
      claimedAt: now,
      finishedAt: null,
    });
    this.rows.add(row);
    this.shrink();
    return { won: true, receipt: observe(row, now) };
  }

  async reclaim(
    key: KeyLike,
    { now, attempts, staleAfterMs, fingerprint }: contract.ReclaimInput,
  ): Promise<contract.ObservedReceipt | null> {
    const row = this.rows.get(key);
    if (!row || row.attempts !== attempts) return null;
    const over =
      row.status === ReceiptStatus.FAILED ||
      (row.status === ReceiptStatus.PROCESSING && row.claimedAt <= now - staleAfterMs);
    if (!over) return null;
    this.unlink(row);
    row.status = ReceiptStatus.PROCESSING;
    row.attempts = attempts + 1;
    row.claimedAt = now;
    row.finishedAt = null;
    row.error = null;
    if (fingerprint !== undefined) row.fingerprint = fingerprint;
    return observe(row, now);
  }

  async complete(key: KeyLike, input: contract.CompleteInput): Promise<boolean> {
    return this.finish(key, input, ReceiptStatus.COMPLETED, (row) => {
      if (input.response !== this.lastResponse) this.lastResponse = input.response;
      row.response = this.lastResponse;
    });
  }

  async fail(key: KeyLike, input: contract.FailInput): Promise<boolean> {
    return this.finish(key, input, ReceiptStatus.FAILED, (row) => {
      row.error = input.error;
    });
  }

  /** Ends the claim (`attempts`, `claimedAt`) if it still holds: the status, what `write` sets, the time. */
  private finish(
    key: KeyLike,
    { now, attempts, claimedAt }: contract.ClaimFence,
    status: Row['status'],
    write: (row: Row) => void,
  ): boolean {
    const row = this.owned(key, attempts, claimedAt);
    if (!row) return false;
    row.status = status;
    write(row);
    row.finishedAt = now;
    this.append(row);
    return true;
  }

  async find(key: KeyLike, { now }: contract.At): Promise<contract.ObservedReceipt | null> {
    const row = this.rows.get(key);
    return row ? observe(row, now) : null;
  }

  /** Which of `keys` have a receipt; one synchronous read. */
  async known(keys: readonly KeyLike[]): Promise<boolean[]> {
    return keys.map((key) => this.rows.get(key) !== undefined);
  }

  /**
   * `completed` receipts for first runs, all or none: checked and written in one synchronous step,
   * so nothing can come between (the store has no transaction; the write is atomic on its own).
   */
  async recordFirst(entries: readonly contract.FirstRun[], { now }: contract.At): Promise<boolean> {
    const keys = entries.map((entry) => entry.key);
    this.dropExpired(now);
    if (!distinctKeys(keys) || keys.some((key) => this.rows.get(key) !== undefined)) return false;
    for (const { key, response, handlerMs } of entries) {
      const row = newRow(key, {
        status: ReceiptStatus.COMPLETED,
        response,
        fingerprint: null,
        claimedAt: now - wholeHandlerMs(handlerMs),
        finishedAt: now,
      });
      this.rows.add(row);
      this.append(row);
    }
    this.shrink();
    return true;
  }

  // One synchronous pass: chunks only matter for databases. The chunk size is still read, so a
  // purge that names it twice, differently, is refused here as by every store. The ignored-event
  // totals of hours that ended before the cut-off go too.
  async purge(input: contract.PurgeInput): Promise<number> {
    const { now, olderThanMs, provider } = input;
    purgeChunkSize(input);
    const cutoff = now - olderThanMs;
    let deleted = 0;
    for (const row of this.rows.values(provider)) {
      if (
        row.status !== ReceiptStatus.PROCESSING &&
        row.finishedAt !== null &&
        row.finishedAt <= cutoff
      ) {
        this.drop(row);
        deleted++;
      }
    }
    this.ignored.purge(cutoff, provider);
    return deleted;
  }

  /**
   * Deletes one finished (`completed` or `failed`) receipt, fenced on the `attempts` and claim
   * time the caller read (as `ReceiptsAdmin.forget` is on a SQL store), so that the next delivery
   * of its key runs the handler again: an operator's deliberate redelivery. Never a `processing`
   * one. `false` when nothing was deleted (no such receipt, processing, or changed since read).
   * @example
   * const receipt = await store.find(key, { now: Date.now() });
   * if (receipt) store.forget(key, receipt);
   */
  forget(key: KeyLike, fence: { readonly attempts: number; readonly claimedAt: Date }): boolean {
    const row = this.rows.get(key);
    if (
      !row ||
      row.status === ReceiptStatus.PROCESSING ||
      row.attempts !== fence.attempts ||
      row.claimedAt !== fence.claimedAt.getTime()
    )
      return false;
    this.drop(row);
    return true;
  }

  /** Every receipt, oldest claim first. For tests and debugging. */
  list(): contract.Receipt[] {
    const now = Date.now();
    return [...this.rows.values()]
      .sort((a, b) => a.claimedAt - b.claimedAt)
      .map((row) => observe(row, now));
  }

  /**
   * Drops the longest-finished receipts while more than `maxReceipts` are held. A loop, not one
   * drop: after a burst of in-flight claims finished, the store shrinks back.
   */
  private shrink(): void {
    while (this.rows.size > this.maxReceipts && this.oldest) this.drop(this.oldest);
  }

  /** Puts a row that just finished at the newest end of the finished list. */
  private append(row: Row): void {
    this.unlink(row);
    row.older = this.newest;
    if (this.newest) this.newest.newer = row;
    else this.oldest = row;
    this.newest = row;
  }

  /** Takes a row out of the finished list, if it is in it. */
  private unlink(row: Row): void {
    if (row !== this.oldest && row.older === null) return;
    if (row.older) row.older.newer = row.newer;
    else this.oldest = row.newer;
    if (row.newer) row.newer.older = row.older;
    else this.newest = row.older;
    row.older = null;
    row.newer = null;
  }

  /** Forgets a finished row. */
  private drop(row: Row): void {
    this.unlink(row);
    this.rows.delete(row);
  }

  /**
   * Drops finished receipts past the retention, oldest first; stops at the first one inside it, so
   * each claim pays only for what it drops.
   */
  private dropExpired(now: number): void {
    if (this.retentionMs === Number.POSITIVE_INFINITY) return;
    const cutoff = now - this.retentionMs;
    while (this.oldest && (this.oldest.finishedAt ?? now) < cutoff) this.drop(this.oldest);
  }

  /**
   * The row, when the caller still holds its claim: `processing` with the same `attempts` and, when
   * given, the same claim time (compared as `observe` returned it, to the millisecond). attempts
   * alone repeats: after a purge, the key's next claim starts at 1 again.
   */
  private owned(key: KeyLike, attempts: number, claimedAt: Date | undefined): Row | undefined {
    const row = this.rows.get(key);
    if (!row || row.status !== ReceiptStatus.PROCESSING || row.attempts !== attempts)
      return undefined;
    // To the millisecond, as a Date made from the claim time holds it (truncated), without making one.
    return claimedAt === undefined || Math.trunc(row.claimedAt) === claimedAt.getTime()
      ? row
      : undefined;
  }
}
