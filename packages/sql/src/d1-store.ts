/**
 * @module D1Store: the Store contract over Cloudflare D1, the SQLite a Worker reaches through a
 * binding. D1 runs single statements and batches (each batch one SQL transaction) but no
 * interactive transaction, so every operation is one statement or one batch, timed by D1's clock.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { DEFAULT_PURGE_BATCH_SIZE, errorText } from '@webhook-idempotency/core/adapter';
import type {
  At,
  ClaimResult,
  KeyLike,
  ObservedReceipt,
  Store,
  StoreCapabilities,
} from '@webhook-idempotency/core';
import { deleteInBatches } from './batch-delete';
import type {
  D1DatabaseLike,
  D1PreparedStatementLike,
  D1ResultLike,
  D1StoreOptions,
  D1Writes,
} from './d1-types';
import { dialects } from './dialects';
import type { Row } from './executor';
import { buildQueries, type Queries } from './queries';
import { storableText, toReceipt } from './rows';
import { resolveTable } from './table-name';

function isD1(db: unknown): db is D1DatabaseLike {
  const candidate = db as Partial<D1DatabaseLike> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.prepare === 'function' &&
    typeof candidate.batch === 'function'
  );
}

const rowsOf = (result: D1ResultLike | undefined): readonly Row[] =>
  (result?.results ?? []) as readonly Row[];

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
export class D1Store implements Store<D1Writes> {
  /** Shared by every isolate bound to the database, timed by D1's clock, without transactions. */
  readonly capabilities: StoreCapabilities = {
    crossProcess: true,
    transactional: false,
    clock: 'store',
  };
  /** The receipts table name. */
  readonly table: string;
  private readonly db: D1DatabaseLike;
  private readonly sql: Queries;
  /** Fails (malformed JSON) unless the claim is still the caller's: the first statement of a batched completion. */
  private readonly fence: string;

  /**
   * @throws {ConfigError} naming `db` when it is not a D1 binding, or `table` when it is not a plain identifier.
   */
  constructor(db: D1DatabaseLike, options: D1StoreOptions = {}) {
    if (!isD1(db))
      throw new ConfigError(
        'db',
        'must be a D1 binding (env.DB of a Worker with a [[d1_databases]] binding), or miniflare getD1Database()',
      );
    this.db = db;
    this.table = resolveTable(options?.table);
    const spec = dialects.sqlite;
    this.sql = buildQueries(spec, this.table);
    const table = spec.quote(this.table);
    // SQLite has no RAISE outside triggers: json() of text that is not JSON fails the statement,
    // and with it the whole batch.
    this.fence = `SELECT json(CASE WHEN EXISTS (SELECT 1 FROM ${table} WHERE ${this.sql.ownedClaim}) THEN '0' ELSE 'claim lost' END) AS fence`;
  }

  /**
   * One batch (one transaction): the `INSERT … ON CONFLICT DO NOTHING RETURNING` that the primary
   * key arbitrates, then the read of the receipt. A won claim gets its row from the first, a lost
   * one the existing receipt from the second: one round trip either way.
   */
  async claim(
    key: KeyLike,
    { fingerprint }: At & { readonly fingerprint: string | null },
  ): Promise<ClaimResult> {
    const [inserted, existing] = await this.db.batch([
      this.statement(this.sql.claim, [key.provider, key.externalId, fingerprint]),
      this.statement(this.sql.find, [key.provider, key.externalId]),
    ]);
    const won = rowsOf(inserted)[0];
    if (won) return { won: true, receipt: toReceipt(won) };
    const row = rowsOf(existing)[0];
    if (row) return { won: false, receipt: toReceipt(row) };
    throw new Error(
      `D1Store: the claim of ${key.provider}/${key.externalId} neither inserted nor found a receipt`,
    );
  }

  /** One conditional `UPDATE … RETURNING`, fenced by `attempts`; staleness by D1's clock. */
  async reclaim(
    key: KeyLike,
    {
      attempts,
      staleAfterMs,
      fingerprint,
    }: At & {
      readonly attempts: number;
      readonly staleAfterMs: number;
      readonly fingerprint?: string | null;
    },
  ): Promise<ObservedReceipt | null> {
    const where = [key.provider, key.externalId, attempts, staleAfterMs];
    const result =
      fingerprint === undefined
        ? await this.statement(this.sql.reclaim, where).all()
        : await this.statement(this.sql.reclaimFingerprint, [fingerprint, ...where]).all();
    const row = rowsOf(result)[0];
    return row ? toReceipt(row) : null;
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
  async complete(
    key: KeyLike,
    {
      attempts,
      claimedAt,
      response,
    }: At & { readonly attempts: number; readonly claimedAt?: Date; readonly response: string },
    writes?: D1Writes,
  ): Promise<boolean> {
    const fenced = [key.provider, key.externalId, attempts];
    const params = [response, ...fenced];
    const completion =
      claimedAt === undefined
        ? this.statement(this.sql.complete, params)
        : this.statement(this.sql.completeClaim, [...params, claimedAt.getTime()]);
    if (writes === undefined || writes.length === 0)
      return (await completion.run()).meta.changes === 1;
    if (claimedAt === undefined)
      throw new ConfigError('claimedAt', 'D1Store.complete with writes needs the claim time');
    const fence = this.statement(this.fence, [...fenced, claimedAt.getTime()]);
    try {
      await this.db.batch([fence, ...writes, completion]);
      return true;
    } catch (error) {
      return this.afterFailedBatch(key, { attempts, claimedAt }, error);
    }
  }

  /**
   * One conditional `UPDATE` fenced like {@link D1Store.complete}. The error text is stored with
   * U+FFFD in place of NUL and of lone surrogates, as on every SQL store.
   */
  async fail(
    key: KeyLike,
    {
      attempts,
      claimedAt,
      error,
    }: At & { readonly attempts: number; readonly claimedAt?: Date; readonly error: string },
  ): Promise<boolean> {
    const params = [storableText(error), key.provider, key.externalId, attempts];
    const statement =
      claimedAt === undefined
        ? this.statement(this.sql.fail, params)
        : this.statement(this.sql.failClaim, [...params, claimedAt.getTime()]);
    return (await statement.run()).meta.changes === 1;
  }

  /** Reads the receipt with D1's "now" in the same statement. */
  async find(key: KeyLike, _at: At): Promise<ObservedReceipt | null> {
    const row = rowsOf(
      await this.statement(this.sql.find, [key.provider, key.externalId]).all(),
    )[0];
    return row ? toReceipt(row) : null;
  }

  /** Deletes finished receipts (of `provider`, when given) one statement per batch of `batchSize` rows (default 1000); never a `processing` one. */
  purge({
    olderThanMs,
    batchSize = DEFAULT_PURGE_BATCH_SIZE,
    provider,
  }: At & {
    readonly olderThanMs: number;
    readonly batchSize?: number;
    readonly provider?: string;
  }): Promise<number> {
    const statement = provider === undefined ? this.sql.purgeBatch : this.sql.purgeProviderBatch;
    return deleteInBatches(
      async (sql, params) => ({ affected: (await this.statement(sql, params).run()).meta.changes }),
      statement,
      provider === undefined ? [olderThanMs] : [provider, olderThanMs],
      batchSize,
    );
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
    const receipt = await this.find(key, { now: 0 }).catch(() => {
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

  private statement(sql: string, params: readonly unknown[]): D1PreparedStatementLike {
    return this.db.prepare(sql).bind(...params);
  }
}
