/** @module InMemoryStore: the Store contract over a Map, for tests, demos and single-process workers. */
import { ReceiptStatus, SECOND } from './constants';
import { ConfigError } from './errors';
import type { KeyLike } from './request-key';
import type { At, ClaimResult, ObservedReceipt, Receipt, Store, StoreCapabilities } from './types';

interface Row {
  provider: string;
  externalId: string;
  status: ReceiptStatus;
  response: string | null;
  attempts: number;
  error: string | null;
  fingerprint: string | null;
  claimedAt: number;
  finishedAt: number | null;
  /** The map key, kept for dropping the row from the finished list's head. */
  id: string;
  /** Neighbours in the list of finished rows (oldest first); null at the ends or when not in it. */
  older: Row | null;
  newer: Row | null;
}

// Length-prefixed so that ('a:b', 'c') and ('a', 'b:c') can never collide.
const mapKey = (key: KeyLike): string => `${key.provider.length}:${key.provider}${key.externalId}`;

function observe(row: Row, now: number): ObservedReceipt {
  return {
    provider: row.provider,
    externalId: row.externalId,
    status: row.status,
    response: row.response,
    attempts: row.attempts,
    error: row.error,
    fingerprint: row.fingerprint,
    claimedAt: new Date(row.claimedAt),
    finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt),
    claimAgeMs: now - row.claimedAt,
  };
}

/** Options of {@link InMemoryStore}. */
export interface InMemoryStoreOptions {
  /**
   * The most receipts held at once. Past it, the finished (`completed` or `failed`) receipt that
   * finished longest ago is dropped; a `processing` receipt never is, so the bound can be passed
   * by as many claims as are in flight. A duplicate of a dropped receipt runs the handler again:
   * size the bound to the deliveries of the provider's redelivery window (docs/providers.md).
   * Defaults to 10,000; `Infinity` keeps everything (then call `guard.purge()` on a schedule).
   */
  maxReceipts?: number;
  /**
   * Finished receipts older than this many seconds (by the caller's clock) are dropped as new
   * claims arrive, as `guard.purge({ retentionDays })` would drop them. Defaults to no limit.
   */
  retentionSeconds?: number;
}

/** Default bound of {@link InMemoryStoreOptions.maxReceipts}. */
const DEFAULT_MAX_RECEIPTS = 10_000;

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
export class InMemoryStore implements Store {
  readonly capabilities: StoreCapabilities = {
    crossProcess: false,
    transactional: false,
    clock: 'caller',
  };
  private readonly rows = new Map<string, Row>();
  /**
   * The finished rows in the order they finished, as a list linked through the rows: the oldest
   * is the next to drop. Linking, unlinking and dropping are O(1), with no iteration over the map
   * (a Map deleted from its front and iterated again skips its deleted entries every time).
   */
  private oldest: Row | null = null;
  private newest: Row | null = null;
  private readonly maxReceipts: number;
  private readonly retentionMs: number;

  constructor(options: InMemoryStoreOptions = {}) {
    const { maxReceipts = DEFAULT_MAX_RECEIPTS, retentionSeconds = Number.POSITIVE_INFINITY } =
      options;
    if (
      typeof maxReceipts !== 'number' ||
      !(
        maxReceipts === Number.POSITIVE_INFINITY ||
        (Number.isSafeInteger(maxReceipts) && maxReceipts > 0)
      )
    ) {
      throw new ConfigError(
        'maxReceipts',
        `must be a positive integer or Infinity, got ${String(maxReceipts)}`,
      );
    }
    if (
      typeof retentionSeconds !== 'number' ||
      Number.isNaN(retentionSeconds) ||
      retentionSeconds <= 0
    ) {
      throw new ConfigError(
        'retentionSeconds',
        `must be a positive number of seconds or Infinity, got ${String(retentionSeconds)}`,
      );
    }
    this.maxReceipts = maxReceipts;
    this.retentionMs = retentionSeconds * SECOND;
  }

  /** How many receipts are held. */
  get size(): number {
    return this.rows.size;
  }

  async claim(
    key: KeyLike,
    { now, fingerprint }: At & { fingerprint: string | null },
  ): Promise<ClaimResult> {
    const id = mapKey(key);
    this.dropExpired(now);
    const existing = this.rows.get(id);
    if (existing) return { won: false, receipt: observe(existing, now) };
    const row: Row = {
      provider: key.provider,
      externalId: key.externalId,
      status: ReceiptStatus.PROCESSING,
      response: null,
      attempts: 1,
      error: null,
      fingerprint,
      claimedAt: now,
      finishedAt: null,
      id,
      older: null,
      newer: null,
    };
    this.rows.set(id, row);
    // A loop, not one drop: after a burst of in-flight claims finished, the store shrinks back.
    while (this.rows.size > this.maxReceipts && this.oldest) this.drop(this.oldest);
    return { won: true, receipt: observe(row, now) };
  }

  async reclaim(
    key: KeyLike,
    {
      now,
      attempts,
      staleAfterMs,
      fingerprint,
    }: At & { attempts: number; staleAfterMs: number; fingerprint?: string | null },
  ): Promise<ObservedReceipt | null> {
    const row = this.rows.get(mapKey(key));
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

  async complete(
    key: KeyLike,
    {
      now,
      attempts,
      claimedAt,
      response,
    }: At & { attempts: number; claimedAt?: Date; response: string },
  ): Promise<boolean> {
    const row = this.owned(key, attempts, claimedAt);
    if (!row) return false;
    row.status = ReceiptStatus.COMPLETED;
    row.response = response;
    row.finishedAt = now;
    this.append(row);
    return true;
  }

  async fail(
    key: KeyLike,
    { now, attempts, claimedAt, error }: At & { attempts: number; claimedAt?: Date; error: string },
  ): Promise<boolean> {
    const row = this.owned(key, attempts, claimedAt);
    if (!row) return false;
    row.status = ReceiptStatus.FAILED;
    row.error = error;
    row.finishedAt = now;
    this.append(row);
    return true;
  }

  async find(key: KeyLike, { now }: At): Promise<ObservedReceipt | null> {
    const row = this.rows.get(mapKey(key));
    return row ? observe(row, now) : null;
  }

  // One synchronous pass: batching only matters for databases, so batchSize is not needed here.
  async purge({
    now,
    olderThanMs,
    provider,
  }: At & { olderThanMs: number; provider?: string }): Promise<number> {
    const cutoff = now - olderThanMs;
    let deleted = 0;
    for (const [id, row] of this.rows) {
      if (provider !== undefined && row.provider !== provider) continue;
      if (
        row.status !== ReceiptStatus.PROCESSING &&
        row.finishedAt !== null &&
        row.finishedAt <= cutoff
      ) {
        this.unlink(row);
        this.rows.delete(id);
        deleted++;
      }
    }
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
    const row = this.rows.get(mapKey(key));
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
  list(): Receipt[] {
    const now = Date.now();
    return [...this.rows.values()]
      .sort((a, b) => a.claimedAt - b.claimedAt)
      .map((row) => observe(row, now));
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
    this.rows.delete(row.id);
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
    const row = this.rows.get(mapKey(key));
    if (!row || row.status !== ReceiptStatus.PROCESSING || row.attempts !== attempts)
      return undefined;
    // To the millisecond, as a Date made from the claim time holds it (truncated), without making one.
    return claimedAt === undefined || Math.trunc(row.claimedAt) === claimedAt.getTime()
      ? row
      : undefined;
  }
}
