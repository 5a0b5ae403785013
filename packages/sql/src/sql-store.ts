/** @module SqlStore: the Store contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §4, §5, §7). */
import { DEFAULT_PURGE_BATCH_SIZE } from '@webhook-idempotency/core/adapter';
import type {
  At,
  ClaimResult,
  KeyLike,
  ObservedReceipt,
  Store,
  StoreCapabilities,
  TransactionOptions,
} from '@webhook-idempotency/core';
import { executorFor, rememberConnection } from './connection';
import { dialects, isDuplicateKey, type DialectSpec } from './dialects';
import { deleteInBatches } from './batch-delete';
import type { Executor } from './executor';
import { buildQueries, type Queries } from './queries';
import { storableText, toReceipt } from './rows';
import { resolveTable } from './table-name';
import type { SqlConnection, SqlDialect, SqlStoreOptions, TransactionOf } from './types';

/** A claim that lost, then found no row (purged in between), tries again this many times. */
const CLAIM_ROUNDS = 3;

/** A key as {@link SqlStore.knownIn} names it: `provider` NUL `externalId`. */
export const receiptKeyOf = (provider: string, externalId: string): string =>
  `${provider}\u0000${externalId}`;

/** The receipt a won MySQL claim wrote, from the claim time its INSERT returned (no read-back). */
function claimedReceipt(
  key: KeyLike,
  fingerprint: string | null,
  claimedMs: number,
): ObservedReceipt {
  return {
    provider: key.provider,
    externalId: key.externalId,
    status: 'processing',
    response: null,
    attempts: 1,
    error: null,
    fingerprint,
    claimedAt: new Date(claimedMs),
    finishedAt: null,
    claimAgeMs: 0,
  };
}

/**
 * The receipts table in the application's own database: its unique index decides which delivery
 * runs the handler, across every process and machine sharing the database. Every timestamp and
 * every staleness decision uses the database's clock.
 *
 * `db` is the connection the application already has — a knex instance, a `pg` Pool, a `mysql2`
 * pool (promise or callback API) or a `better-sqlite3` Database; the store never opens or closes
 * it. Create the table first with `Schema.createTable(db)` or a migration (`Schema.statements`).
 *
 * Transactional mode (`new IdempotencyGuard(store, { transactional: true })`) runs the handler in
 * a transaction on `db` and writes `completed` in it, so the business writes and the receipt
 * commit or roll back together; the handler gets the handle as `context.transaction`, typed by
 * {@link TransactionOf}.
 *
 * @example
 * const store = new SqlStore(new pg.Pool({ connectionString }), { table: 'webhook_receipts' });
 * const guard = new IdempotencyGuard(store, { transactional: true });
 * await guard.run(new RequestKey('stripe', event.id), async ({ transaction }) => {
 *   await transaction!.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
 *   return { received: true };
 * });
 * @see packages/sql/README.md
 */
export class SqlStore<Db extends SqlConnection = SqlConnection>
  implements Store<TransactionOf<Db>>
{
  /** Shared by processes and machines, transactional, timed by the database clock. */
  readonly capabilities: StoreCapabilities = {
    crossProcess: true,
    transactional: true,
    clock: 'store',
  };
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The receipts table name. */
  readonly table: string;
  private readonly executor: Executor;
  private readonly spec: DialectSpec;
  private readonly sql: Queries;

  /**
   * @throws {ConfigError} naming `db` when it is not a supported connection.
   * @throws {ConfigError} when `table` is not a plain identifier or `acquireTimeoutMs` is not a positive number.
   */
  constructor(db: Db, options: SqlStoreOptions = {}) {
    this.table = resolveTable(options.table);
    this.executor = executorFor(db, options);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.sql = buildQueries(this.spec, this.table);
    rememberConnection(this, db);
  }

  /** One `INSERT` that the unique index arbitrates; the loser reads the existing row. */
  async claim(
    key: KeyLike,
    { fingerprint }: At & { readonly fingerprint: string | null },
  ): Promise<ClaimResult> {
    if (this.executor.busy?.()) {
      // The one connection is held by a handler's transaction: a completed receipt is answered
      // from a read at once instead of queueing the claim behind it (DESIGN.md §10).
      const existing = await this.read(key);
      if (existing?.status === 'completed') return { won: false, receipt: existing };
    }
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      let won = false;
      try {
        const params = [key.provider, key.externalId, fingerprint];
        if (this.sql.claimReadsExisting) params.push(key.provider, key.externalId);
        const { rows, affected, insertId } = await this.executor.query(this.sql.claim, params);
        const row = rows[0];
        if (row) return { won: Number(row.won) === 1, receipt: toReceipt(row) } as ClaimResult;
        // Without RETURNING (MySQL) the affected count says whether this INSERT won, and the
        // insert id carries the claim time it wrote: the receipt is known without a read.
        won = affected === 1;
        if (won && this.spec.attemptsReturningClaimTime && insertId && insertId > 0)
          return { won: true, receipt: claimedReceipt(key, fingerprint, insertId) };
      } catch (error) {
        if (!isDuplicateKey(this.spec, error)) throw error;
      }
      const receipt = await this.read(key);
      if (won) {
        // A won INSERT wrote attempts = 1. The read is a separate statement: a worker that stalled
        // before it past the stale threshold finds the receipt of whoever took over since (attempts
        // above 1). That claim is lost, before any handler ran: never adopt the other's token.
        if (receipt)
          return receipt.status === 'processing' && receipt.attempts === 1
            ? { won: true, receipt }
            : { won: false, receipt };
      } else if (receipt) {
        return { won: false, receipt };
      }
      // No row: purged between the INSERT and the read (for a won INSERT: taken over, finished and
      // purged since). Claim again.
    }
    throw new Error(
      `SqlStore: could not claim or read ${key.provider}/${key.externalId} after ${CLAIM_ROUNDS} rounds`,
    );
  }

  /**
   * One conditional `UPDATE` fenced by `attempts`; staleness is judged by the database clock. A
   * given `fingerprint` (string or `null`) is recorded by that same `UPDATE`.
   */
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
        ? await this.executor.query(this.sql.reclaim, where)
        : await this.executor.query(this.sql.reclaimFingerprint, [fingerprint, ...where]);
    if (result.affected !== 1) return null;
    if (result.rows[0]) return toReceipt(result.rows[0]);
    // Without RETURNING (MySQL) the receipt is read back by a second statement. This UPDATE wrote
    // attempts + 1; a read showing anything else means another worker took the receipt over in
    // between (this one stalled past the stale threshold): it is lost before its handler ran.
    const receipt = await this.read(key);
    return receipt?.status === 'processing' && receipt.attempts === attempts + 1 ? receipt : null;
  }

  /**
   * One conditional `UPDATE` fenced by `attempts` and, when given, by `claimedAt` (compared in
   * whole milliseconds with the `claimed_at` the claim read back); inside `transaction` when given.
   */
  async complete(
    key: KeyLike,
    {
      attempts,
      claimedAt,
      response,
    }: At & { readonly attempts: number; readonly claimedAt?: Date; readonly response: string },
    transaction?: TransactionOf<Db>,
  ): Promise<boolean> {
    const params = [response, key.provider, key.externalId, attempts];
    const result =
      claimedAt === undefined
        ? await this.executor.query(this.sql.complete, params, transaction)
        : await this.executor.query(
            this.sql.completeClaim,
            [...params, claimedAt.getTime()],
            transaction,
          );
    return result.affected === 1;
  }

  /**
   * One conditional `UPDATE` fenced like {@link SqlStore.complete}. The error text is stored with
   * U+FFFD in place of NUL and of lone surrogates, which PostgreSQL TEXT (and UTF-8) cannot hold:
   * every dialect then stores the same text, and the write cannot fail because of what a handler threw.
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
    const result =
      claimedAt === undefined
        ? await this.executor.query(this.sql.fail, params)
        : await this.executor.query(this.sql.failClaim, [...params, claimedAt.getTime()]);
    return result.affected === 1;
  }

  /** Reads the receipt with the database's "now" in the same statement. */
  find(key: KeyLike, _at: At): Promise<ObservedReceipt | null> {
    return this.read(key);
  }

  /** Deletes finished receipts (of `provider`, when given) one statement per batch of `batchSize` rows (default 1000); never a `processing` one. */
  async purge({
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
      (sql, params) => this.executor.query(sql, params),
      statement,
      provider === undefined ? [olderThanMs] : [provider, olderThanMs],
      batchSize,
    );
  }

  /**
   * Runs `work` in a transaction on the store's database; see {@link TransactionOf} for the handle.
   * The handle refuses every call once the transaction has ended (`TransactionClosed`); when
   * `options.signal` aborts, the transaction ends at once (its connection is closed if a statement
   * is in flight) and this rejects. On PostgreSQL and MySQL, lock waits inside the transaction are
   * bounded by `options.timeoutMs` (PostgreSQL also ends a transaction left idle that long). When
   * `work` rejects and the rollback cannot be sent (the database ended the connection under it),
   * this rejects with a `StoreError` whose `cause` is what `work` rejected with.
   */
  withTransaction<T>(
    work: (transaction: TransactionOf<Db>) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    return this.executor.transaction((transaction) => work(transaction as TransactionOf<Db>), {
      lockStatement: this.spec.lockForWrite?.(this.spec.quote(this.table)),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * @internal Of `keys`, those that have a receipt (as `provider` NUL `externalId`), read in
   * `transaction`: the inbox's batches leave them out (SqlInbox.batcherFor).
   */
  async knownIn(keys: readonly KeyLike[], transaction: unknown): Promise<Set<string>> {
    const known = new Set<string>();
    if (keys.length === 0) return known;
    const { rows } = await this.executor.query(
      this.sql.known(keys.length),
      keys.flatMap((key) => [key.provider, key.externalId]),
      transaction,
    );
    for (const row of rows) known.add(receiptKeyOf(String(row.provider), String(row.external_id)));
    return known;
  }

  /**
   * @internal Writes a `completed` receipt (attempts 1, finished now, claimed its `handlerMs`
   * before: each entry's own handler time, as a run on its own records it) for each entry, in
   * `transaction`. `false` when a key had a receipt already (another run wrote it since
   * {@link SqlStore.knownIn}): the caller rolls the transaction back.
   */
  async recordIn(
    entries: readonly {
      readonly key: KeyLike;
      readonly response: string;
      readonly handlerMs: number;
    }[],
    transaction: unknown,
  ): Promise<boolean> {
    if (entries.length === 0) return true;
    try {
      const { affected } = await this.executor.query(
        this.sql.record(entries.length),
        entries.flatMap(({ key, response, handlerMs }) => [
          key.provider,
          key.externalId,
          response,
          // Whole milliseconds, as the columns hold them (SQLite's are integers).
          Number.isFinite(handlerMs) ? Math.max(0, Math.round(handlerMs)) : 0,
        ]),
        transaction,
      );
      return affected === entries.length;
    } catch (error) {
      if (isDuplicateKey(this.spec, error)) return false;
      throw error;
    }
  }

  private async read(key: KeyLike): Promise<ObservedReceipt | null> {
    const { rows } = await this.executor.query(this.sql.find, [key.provider, key.externalId]);
    return rows[0] ? toReceipt(rows[0]) : null;
  }
}
