/**
 * @module ReceiptsAdmin: the operations API over the receipts table, what the CLI and a dashboard
 * read it with: counts, stuck claims, handler times, listings, chunked purge, and the repairs
 * (release a stuck claim, forget a finished receipt), whose rules are core's (`releaseReceipt`,
 * `forgetReceipt` of `@webhook-idempotency/core/operations`) over this table's fenced writes. It
 * runs the receipts' statements (receipts/queries.ts) and its own (queries.ts), all built from the
 * dialect table like the store's, so the operators read the table exactly as the store writes it.
 */
import {
  ConfigError,
  type KeyLike,
  type ObservedReceipt,
  StoreError,
} from '@webhook-idempotency/core';
import { purgeChunkSize, renamedOption } from '@webhook-idempotency/core/adapter';
import {
  type ExpectedClaim,
  type ReceiptRepairs,
  RepairableReceipts,
} from '@webhook-idempotency/core/operations';
import { requireCount, requireMs, toBuckets } from './checks';
import type {
  ActivityOptions,
  ActivityReport,
  AdminCountOptions,
  AdminPurgeOptions,
  IgnoredOptions,
  IgnoredReport,
  ListOptions,
  ReceiptsAdminOptions,
  ReceiptsStatus,
  ReceiptSummary,
  StatusOptions,
} from './types';
import { deleteInChunks } from '../connections/chunked-delete';
import { createExecutor } from '../connections/detect';
import { DEFAULT_ACQUIRE_TIMEOUT_MS } from '../connections/constants';
import { type DialectSpec, dialects, tableExists } from '../dialects';
import type { Executor } from '../connections/executor';
import { ignoredReport } from './ignored';
import { IgnoredTable, ignoredTableOf } from '../receipts/ignored';
import { listStatement } from './list';
import { statusReport } from './status';
import { adminStatements } from './queries';
import { buildQueries, type Queries } from '../receipts/queries';
import { text, toReceipt } from '../receipts/rows';
import { resolveTable } from '../receipts/table-name';
import type { SqlConnection, SqlDialect } from '../connections/types';

const DEFAULT_SAMPLE_LIMIT = 10_000;
const MAX_BUCKETS = 1000;

/**
 * Reads and repairs the receipts table of a {@link SqlStore}, on any connection the store accepts
 * and every dialect it supports: what the `webhook-idempotency` CLI runs, and what a dashboard or
 * an alert script can call directly. Times are judged by the database clock, like the store's.
 * Driver failures are thrown as `StoreError` (the driver's error as `cause`); bad options as
 * `ConfigError` naming the option.
 *
 * @example
 * const admin = new ReceiptsAdmin(pool);
 * const { totals } = await admin.status({ staleAfterMs: 300_000, sinceMs: 86_400_000 });
 * if (totals.stuck > 0) {
 *   for (const receipt of await admin.list({ stuckAfterMs: 300_000, order: 'oldest' }))
 *     await admin.release(receipt, { staleAfterMs: 300_000 });
 * }
 * @see packages/cli/README.md
 */
export class ReceiptsAdmin extends RepairableReceipts {
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The receipts table name. */
  readonly table: string;
  private readonly executor: Executor;
  private readonly sql: Queries;
  private readonly admin: ReturnType<typeof adminStatements>;
  private readonly spec: DialectSpec;

  /**
   * @throws {ConfigError} naming `db` when it is not a supported connection.
   * @throws {ConfigError} when `table` is not a plain identifier or `acquireTimeoutMs` is not a positive number.
   */
  constructor(db: SqlConnection, options: ReceiptsAdminOptions = {}) {
    super();
    this.table = resolveTable(options.table);
    const acquireTimeoutMs = requireMs(
      'acquireTimeoutMs',
      options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
    );
    // Operations run rarely and some statements vary with the filters: nothing to prepare.
    this.executor = createExecutor(db, acquireTimeoutMs, false);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.sql = buildQueries(this.spec, this.table);
    this.admin = adminStatements(this.spec, this.table);
  }

  /** True when the receipts table exists; false when the database reports it missing. */
  async tableExists(): Promise<boolean> {
    try {
      return await tableExists(this.executor, this.spec, this.admin.exists);
    } catch (error) {
      throw new StoreError(`a check of table ${this.table}`, error);
    }
  }

  /**
   * Counts per provider × status, the `processing` receipts older than `staleAfterMs` (stuck) and
   * the oldest claim's age, then for the receipts finished in the last `sinceMs`: how many failed,
   * and the p50/p95/p99 of the handler time (`finished_at − claimed_at`) of the completed ones, from
   * at most `sampleLimit` of the most recent, computed here so that every dialect gives the same
   * numbers. Failed receipts have no handler time: a released claim failed when it was released.
   */
  async status(options: StatusOptions): Promise<ReceiptsStatus> {
    const staleAfterMs = requireMs('staleAfterMs', options.staleAfterMs);
    const sinceMs = requireMs('sinceMs', options.sinceMs);
    const sampleLimit = requireCount(
      'sampleLimit',
      options.sampleLimit ?? DEFAULT_SAMPLE_LIMIT,
      1_000_000,
    );
    const [counts, finished, durations] = await Promise.all([
      this.run('status', this.admin.counts, [staleAfterMs]),
      this.run('status', this.admin.finished, [sinceMs]),
      this.run('status', this.admin.durations, [sinceMs, sampleLimit]),
    ]);
    return statusReport({ counts, finished, durations }, { staleAfterMs, sinceMs });
  }

  /**
   * Receipts matching every given filter, newest claim first (or oldest with `order: 'oldest'`),
   * without their stored answers (read one with {@link ReceiptsAdmin.find}); at most `limit`
   * (default 50, up to 10 000; `SqlInbox.list`'s default is 100). Ordered by claim time, then
   * provider and external id: the index on those columns serves the order, so a page (the first,
   * or the next after a cursor) reads about `limit` rows of it however large the table is.
   * @throws {ConfigError} naming `status` for a status that does not exist, or another option
   * that is not valid.
   */
  async list(options: ListOptions = {}): Promise<ReceiptSummary[]> {
    const { sql, params } = listStatement(this.spec, this.admin, options);
    const rows = await this.run('list', sql, params);
    return rows.map((row) => {
      const { response: _response, fingerprint: _fingerprint, ...summary } = toReceipt(row);
      return { ...summary, claimedAtText: text(row.claimed_text) };
    });
  }

  /**
   * The receipts that finished (`completed` or `failed`) in the last `sinceMs`, counted per
   * bucket of `bucketMs` (by finish time, the database clock), with the mean and longest handler
   * time of the completed ones: the deliveries-and-duration chart of a dashboard, from one
   * grouped statement however many receipts finished.
   * @throws {ConfigError} naming `sinceMs` or `bucketMs` (not positive, or more than 1000 buckets).
   * @example
   * const { buckets } = await admin.activity({ sinceMs: 3_600_000, bucketMs: 60_000 });
   */
  async activity(options: ActivityOptions): Promise<ActivityReport> {
    const sinceMs = requireMs('sinceMs', options.sinceMs);
    const bucketMs = requireMs('bucketMs', options.bucketMs);
    if (sinceMs / bucketMs > MAX_BUCKETS)
      throw new ConfigError('bucketMs', `must cut sinceMs into at most ${MAX_BUCKETS} buckets`);
    const [rows, clock] = await Promise.all([
      this.run('activity', this.admin.activity, [bucketMs, sinceMs]),
      this.run('activity', this.admin.now, []),
    ]);
    const nowMs = Number(clock[0]?.db_now);
    const buckets = toBuckets(
      rows.map((row) => ({
        bucket: Number(row.bucket),
        status: text(row.status),
        n: Number(row.n),
        totalMs: Number(row.total_ms ?? 0),
        maxMs: Number(row.max_ms ?? 0),
      })),
      { nowMs, sinceMs, bucketMs },
    );
    return { sinceMs, bucketMs, now: new Date(nowMs), buckets };
  }

  /**
   * The events route sets ignored (no route took them: nothing stored, nothing run), per provider
   * and type, over the whole hours of the last `sinceMs`; `counted: false` before `migrate` made
   * the counts table. The guards write them every few seconds: the last seconds' are not here yet.
   */
  ignored(options: IgnoredOptions): Promise<IgnoredReport> {
    return ignoredReport(this.executor, this.spec, this.table, options);
  }

  /** One receipt with its stored answer, or `null`. */
  async find(key: KeyLike): Promise<ObservedReceipt | null> {
    const rows = await this.run('find', this.sql.find, [key.provider, key.externalId]);
    return rows[0] ? toReceipt(rows[0]) : null;
  }

  /** The table's side of the repairs: a read and the two fenced writes. */
  protected readonly repairs: ReceiptRepairs = {
    find: (key) => this.find(key),
    failClaim: async (key: KeyLike, claim: ExpectedClaim, error: string) =>
      (
        await this.runQuery('release', this.sql.failClaim, [
          error,
          key.provider,
          key.externalId,
          claim.attempts,
          claim.claimedAt.getTime(),
        ])
      ).affected === 1,
    forgetClaim: async (key: KeyLike, claim: ExpectedClaim) =>
      (
        await this.runQuery('forget', this.admin.forget, [
          key.provider,
          key.externalId,
          claim.attempts,
          claim.claimedAt.getTime(),
        ])
      ).affected === 1,
  };

  /** How many receipts {@link ReceiptsAdmin.purge} would delete now. */
  async countPurgeable(options: AdminCountOptions): Promise<number> {
    const olderThanMs = requireMs('olderThanMs', options.olderThanMs, { allowZero: true });
    const rows =
      options.provider === undefined
        ? await this.run('purge count', this.admin.purgeable, [olderThanMs])
        : await this.run('purge count', this.admin.purgeableOfProvider, [
            options.provider,
            olderThanMs,
          ]);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Deletes finished receipts (of `provider`, when given) finished longer ago than `olderThanMs`,
   * with the store's own chunked `DELETE`, one statement per `chunkSize` rows; never a
   * `processing` one. Calls `onChunk` after each chunk that deleted rows. Returns how many it
   * deleted. Then the ignored-event totals of hours that ended before the cut-off (by this
   * process's clock, which the counting guards share), in one statement.
   */
  async purge(options: AdminPurgeOptions): Promise<number> {
    const olderThanMs = requireMs('olderThanMs', options.olderThanMs, { allowZero: true });
    const chunkSize = requireCount('chunkSize', purgeChunkSize(options), 1e6);
    const onChunk = renamedOption(options, 'onChunk', 'onBatch');
    const { provider } = options;
    const statement = provider === undefined ? this.sql.purgeChunk : this.sql.purgeProviderChunk;
    const deleted = await deleteInChunks(
      (sql, params) => this.runQuery('purge', sql, params),
      statement,
      provider === undefined ? [olderThanMs] : [provider, olderThanMs],
      chunkSize,
      onChunk,
    );
    const counts = new IgnoredTable(this.executor, this.spec, this.table);
    try {
      await counts.purge(Date.now() - olderThanMs, provider);
    } catch (error) {
      throw new StoreError(`purge on table ${ignoredTableOf(this.table)}`, error);
    }
    return deleted;
  }

  private async run(operation: string, sql: string, params: readonly unknown[]) {
    return (await this.runQuery(operation, sql, params)).rows;
  }

  private async runQuery(operation: string, sql: string, params: readonly unknown[]) {
    try {
      return await this.executor.query(sql, params);
    } catch (error) {
      throw new StoreError(`${operation} on table ${this.table}`, error);
    }
  }
}
