/** @module InMemoryStore: the Store contract over a Map, for tests, demos and single-process workers. */
import { ReceiptStatus } from './constants';
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

/**
 * Keeps receipts in this process's memory. Every operation runs to completion without yielding,
 * which makes it atomic **within one process only**: two processes (cluster workers, several
 * containers) each have their own map and would both run the handler. Use the SQL store there.
 * Nothing expires by itself: call `guard.purge()` on a schedule. No timers, nothing to close.
 *
 * @example
 * const guard = new IdempotencyGuard(new InMemoryStore());
 */
export class InMemoryStore implements Store {
  readonly capabilities: StoreCapabilities = {
    crossProcess: false,
    transactional: false,
    clock: 'caller',
  };
  private readonly rows = new Map<string, Row>();

  /** How many receipts are held. */
  get size(): number {
    return this.rows.size;
  }

  async claim(
    key: KeyLike,
    { now, fingerprint }: At & { fingerprint: string | null },
  ): Promise<ClaimResult> {
    const id = mapKey(key);
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
    };
    this.rows.set(id, row);
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
        row.finishedAt < cutoff
      ) {
        this.rows.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  /** Every receipt, oldest claim first. For tests and debugging. */
  list(): Receipt[] {
    const now = Date.now();
    return [...this.rows.values()]
      .sort((a, b) => a.claimedAt - b.claimedAt)
      .map((row) => observe(row, now));
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
    return claimedAt === undefined || new Date(row.claimedAt).getTime() === claimedAt.getTime()
      ? row
      : undefined;
  }
}
