/**
 * Receipts in chosen states and at chosen ages, for the operations tests (ReceiptsAdmin, the CLI):
 * each is claimed, completed or failed through the real SqlStore, then its timestamps are moved
 * into the past (the database clock cannot be faked), so its state is one the guard made.
 */
import type { ReceiptStatus } from '@webhook-idempotency/core';
import { type SqlConnection, SqlStore } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { dialects } from '../../src/dialects';

/** One receipt to seed. */
export interface SeedReceipt {
  readonly provider: string;
  readonly externalId: string;
  readonly status: ReceiptStatus;
  /** Milliseconds since it finished (completed/failed) or was claimed (processing). */
  readonly ageMs: number;
  /** Handler time: milliseconds between claim and finish. Defaults to 0. */
  readonly tookMs?: number;
  /** The stored answer of a completed receipt. */
  readonly response?: string;
  /** The error of a failed receipt. */
  readonly error?: string;
}

/** What the HTTP engine stores for a JSON answer. */
export const httpResponse = (status: number, body: unknown): string =>
  JSON.stringify({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
    encoding: 'utf8',
  });

/** Seeds `receipts` into `table` (which must exist) on `db`. */
export async function seedReceipts(
  db: SqlConnection,
  table: string,
  receipts: readonly SeedReceipt[],
): Promise<void> {
  const store = new SqlStore(db, { table });
  const executor = createExecutor(db, 10_000, false);
  const spec = dialects[executor.dialect];
  const t = spec.quote(table);
  const ago = spec.minusMs(spec.now);
  const moveClaim = `UPDATE ${t} SET claimed_at = ${ago} WHERE provider = ? AND external_id = ?`;
  const moveBoth = `UPDATE ${t} SET claimed_at = ${ago}, finished_at = ${ago} WHERE provider = ? AND external_id = ?`;
  for (const receipt of receipts) {
    const key = { provider: receipt.provider, externalId: receipt.externalId };
    const claim = await store.claim(key, { now: Date.now(), fingerprint: null });
    if (!claim.won) throw new Error(`seed: ${key.provider}/${key.externalId} exists already`);
    const { attempts, claimedAt } = claim.receipt;
    const at = { now: Date.now(), attempts, claimedAt };
    const tookMs = receipt.tookMs ?? 0;
    if (receipt.status === 'processing') {
      await executor.query(moveClaim, [receipt.ageMs, key.provider, key.externalId]);
      continue;
    }
    const written =
      receipt.status === 'completed'
        ? await store.complete(key, { ...at, response: receipt.response ?? httpResponse(200, {}) })
        : await store.fail(key, { ...at, error: receipt.error ?? 'Error: failed' });
    if (!written) throw new Error(`seed: could not finish ${key.provider}/${key.externalId}`);
    await executor.query(moveBoth, [
      receipt.ageMs + tookMs,
      receipt.ageMs,
      key.provider,
      key.externalId,
    ]);
  }
}
