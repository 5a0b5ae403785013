/**
 * @module docs/stores.md and docs/operations.md: the in-memory store, the DDL for your own
 * migration tool, and purge. Run by test/stores.test.ts.
 */
import type { ProviderPreset, RequestKey } from '@webhook-idempotency/core';
import type { PoolClient } from 'pg';
// #region memory
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
// #endregion memory
// #region statements
import { Schema } from '@webhook-idempotency/sql';
// #endregion statements

/** A guard over the in-memory store. */
export function memoryGuard(): IdempotencyGuard {
  // #region memory
  const guard = new IdempotencyGuard(new InMemoryStore()); // one process: tests, a single worker
  // #endregion memory
  return guard;
}

/** An in-memory store sized to a provider's redelivery window. */
export function boundedMemoryStore(): InMemoryStore {
  // #region memory-bounded
  const store = new InMemoryStore({ maxReceipts: 60_000, retentionSeconds: 3 * 86_400 }); // Stripe: 3 days of retries
  // #endregion memory-bounded
  return store;
}

/** The split API: claim, do the work, settle the ticket (a queue consumer, code without a callback). */
export async function consume(
  guard: IdempotencyGuard,
  key: RequestKey,
  bookPayment: () => Promise<{ booked: boolean }>,
): Promise<unknown> {
  // #region claim
  const claim = await guard.claim(key);
  if (claim.isReplay) return claim.response; // a duplicate: the stored result, nothing runs
  try {
    const result = await bookPayment();
    await claim.complete(result);
    return result;
  } catch (error) {
    await claim.fail(error); // the next delivery runs it again
    throw error;
  }
  // #endregion claim
}

/**
 * The split API with a transaction that stays open across steps: the business write and the
 * receipt commit together, here on a `pg` Pool (`guard` is transactional over a `SqlStore`).
 */
export async function consumeInTransaction(
  guard: IdempotencyGuard<PoolClient>,
  key: RequestKey,
  orderId: string,
): Promise<unknown> {
  // #region claim-begin
  const claim = await guard.claim(key);
  if (claim.isReplay) return claim.response;
  const open = await claim.begin(); // BEGIN; the handler deadline starts now
  try {
    await open.context.transaction!.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
    await open.commit({ paid: orderId }); // `completed` and the UPDATE commit together
    return { paid: orderId };
  } catch (error) {
    await open.rollback(error); // nothing of it stays; the next delivery runs it again
    throw error;
  }
  // #endregion claim-begin
}

/** The DDL as one `.sql` text, for migration tools other than knex. */
export function migrationSql(): string {
  // #region statements
  // One idempotent statement per string; write them into your migration tool's file.
  const sql = `${Schema.statements('postgres', { table: 'webhook_receipts' }).join(';\n\n')};\n`;
  // #endregion statements
  return sql;
}

/** The scheduled purge; `guard` is any guard over the receipts' store. */
export async function purgeOnce(
  guard: IdempotencyGuard<unknown>,
  stripe: ProviderPreset,
): Promise<number> {
  // #region purge
  // once an hour, from one place (a cron job or one elected instance);
  // adapters users: `new IdempotencyGuard(store)` over the same store will do
  let deleted = await guard.purge({
    provider: stripe.provider,
    retentionDays: stripe.retentionDays,
  });
  deleted += await guard.purge({ provider: 'github', retentionDays: 7 });
  // #endregion purge
  return deleted;
}
