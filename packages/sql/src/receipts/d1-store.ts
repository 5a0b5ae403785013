/**
 * @module D1Store: the receipts table (table.ts) on a Cloudflare D1 binding, the SQLite a Worker
 * reaches through a binding. D1 runs single statements and batches (each batch one SQL
 * transaction) but no interactive transaction: the table runs every operation as one statement or
 * one batch, timed by D1's clock, and a completion can carry the handler's own statements into its
 * batch (`complete(result, writes)`).
 */
import { ConfigError, type KeyLike, type StoreCapabilities } from '@webhook-idempotency/core';
import { type CompleteInput, errorText } from '@webhook-idempotency/core/adapter';
import { d1Runner } from '../connections/d1';
import type { D1DatabaseLike, D1StoreOptions, D1Writes } from '../connections/d1-types';
import { connectionIdentity } from '../connections/identity';
import { ReceiptsTable } from './table';
import { resolveTable } from './table-name';

/** Shared by every isolate bound to the database, timed by D1's clock, without transactions. */
const CAPABILITIES: StoreCapabilities = {
  crossProcess: true,
  transactional: false,
  clock: 'store',
  ignoredCounts: true,
};

/**
 * The receipts table in a Cloudflare D1 database: its primary key decides which delivery runs the
 * handler, across every Worker isolate and location bound to the database (D1 runs each database
 * in one place, one statement at a time). Every timestamp and staleness decision uses D1's clock.
 *
 * Without interactive transactions there is no transactional completion
 * (`capabilities.transactional` is `false`): the guarantee is at most one handler run per claim. A
 * Worker that dies after its handler's writes and before `completed` leaves the receipt
 * `processing`; once `staleAfterSeconds` has passed, the next delivery runs the handler again. When
 * the handler's effect is SQL on the same D1 database, `claim.complete(result, writes)` commits those
 * statements and the receipt in one batch (see {@link D1Store.complete}): then the effect happens
 * once.
 *
 * Create the table with the migration `Schema.d1Migration()` gives (`wrangler d1 migrations`).
 *
 * @example
 * // A Worker with `[[d1_databases]] binding = "DB"` in wrangler.toml
 * const guard = new IdempotencyGuard(new D1Store(env.DB));
 * @see docs/stores.md
 */
export class D1Store extends ReceiptsTable<D1Writes> {
  private readonly d1: ReturnType<typeof d1Runner>;
  /** Fails (malformed JSON) unless the claim is still the caller's: the first statement of a batched completion. */
  private readonly fence: string;

  /**
   * @throws {ConfigError} naming `db` when it is not a D1 binding, or `table` when it is not a plain identifier.
   */
  constructor(db: D1DatabaseLike, options: D1StoreOptions = {}) {
    const runner = d1Runner(db);
    super({
      runner,
      connection: connectionIdentity(db, runner.dialect),
      table: resolveTable(options?.table),
      capabilities: CAPABILITIES,
    });
    this.d1 = runner;
    // SQLite has no RAISE outside triggers: json() of text that is not JSON fails the statement,
    // and with it the whole batch.
    this.fence = `SELECT json(CASE WHEN EXISTS (SELECT 1 FROM ${this.spec.quote(this.table)} WHERE ${this.sql.ownedClaim}) THEN '0' ELSE 'claim lost' END) AS fence`;
  }

  /**
   * One conditional `UPDATE`, fenced by `attempts` and, when given, `claimedAt`.
   *
   * With `writes` (statements prepared on the same D1 database, as `claim.complete(result, writes)`
   * passes them), one `batch()`: a check that fails the batch unless the claim is still this
   * worker's, then `writes` in order, then the `completed` write. D1 runs a batch as one
   * transaction, so the business writes and the receipt commit together or not at all. Resolves
   * `false` (nothing written) when the claim was taken over. When a statement of `writes` fails,
   * nothing is written, the receipt is marked `failed` with D1's error (so the next delivery runs
   * again) and this rejects with that error. When the batch's answer is lost but it committed,
   * this resolves `true` (the receipt is read back to tell).
   * @throws {ConfigError} naming `claimedAt` when `writes` come without it.
   */
  override async complete(key: KeyLike, input: CompleteInput, writes?: D1Writes): Promise<boolean> {
    if (writes === undefined || writes.length === 0) return super.complete(key, input);
    const { attempts, claimedAt, response } = input;
    if (claimedAt === undefined)
      throw new ConfigError('claimedAt', 'D1Store.complete with writes needs the claim time');
    const fenced = [key.provider, key.externalId, attempts];
    const completion = this.d1.prepared(this.sql.completeClaim, [
      response,
      ...fenced,
      claimedAt.getTime(),
    ]);
    const fence = this.d1.prepared(this.fence, [...fenced, claimedAt.getTime()]);
    try {
      await this.d1.batchPrepared([fence, ...writes, completion]);
      return true;
    } catch (error) {
      return this.afterFailedBatch(key, { attempts, claimedAt }, error);
    }
  }

  /**
   * A batched completion rejected: nothing of it was written, or it committed and only its answer
   * was lost. The receipt tells which.
   */
  private async afterFailedBatch(
    key: KeyLike,
    claim: { readonly attempts: number; readonly claimedAt: Date },
    error: unknown,
  ): Promise<boolean> {
    const receipt = await this.read(key).catch(() => {
      throw error;
    });
    const ours =
      receipt !== null &&
      receipt.attempts === claim.attempts &&
      receipt.claimedAt.getTime() === claim.claimedAt.getTime();
    if (ours && receipt.status === 'completed') return true;
    if (!ours || receipt.status !== 'processing') return false;
    // The claim is still this worker's, so the fence passed and a statement of the writes failed:
    // a deterministic failure would come back on every retry, so the next delivery may run now.
    await this.fail(key, { now: 0, ...claim, error: errorText(error) }).catch(() => undefined);
    throw error;
  }
}
