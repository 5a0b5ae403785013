/**
 * @module ReceiptsTable: the Store contract over a receipts table, on any kind of connection (the
 * drivers, the ORMs, D1). `SqlStore` is it with the connection's transactions; `D1Store` is it on
 * a D1 binding, which has none. Every statement is built once from the dialect table
 * (queries.ts); every timestamp and every staleness decision uses the database's clock.
 */
import type * as core from '@webhook-idempotency/core';
import type { IgnoredCount, IgnoredQuery, IgnoredTotal } from '@webhook-idempotency/core/adapter';
import {
  type ClaimInput,
  type CompleteInput,
  type FailInput,
  type FirstRun,
  type PurgeInput,
  purgeChunkSize,
  type ReclaimInput,
} from '@webhook-idempotency/core/adapter';
import { deleteInChunks } from '../connections/chunked-delete';
import type { QueryResult, StatementRunner } from '../connections/executor';
import { CONNECTION, type ConnectionIdentity, type OnConnection } from '../connections/identity';
import { type DialectSpec, dialects, isDuplicateKey, type SqlDialect } from '../dialects';
import { type FirstRunsScope, knownKeys, recordFirstRuns } from './first-runs';
import { IgnoredTable } from './ignored';
import { buildQueries, type Queries } from './queries';
import { storableText, toReceipt } from './rows';

/** A claim that lost, then found no row (purged in between), tries again this many times. */
const CLAIM_ROUNDS = 3;

/** The receipt a won MySQL claim wrote, from the claim time its INSERT returned (no read-back). */
function claimedReceipt(
  key: core.KeyLike,
  fingerprint: string | null,
  claimedMs: number,
): core.ObservedReceipt {
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

/** What a receipts table is built on: its connection, its table name, what the store declares. */
export interface ReceiptsTableSetup {
  readonly runner: StatementRunner;
  readonly connection: ConnectionIdentity;
  readonly table: string;
  readonly capabilities: core.StoreCapabilities;
}

/**
 * The receipts table in the application's own database: its unique index decides which delivery
 * runs the handler, across every process and machine sharing the database. The Store contract's
 * operations, each one statement (or one batch); `SqlStore` and `D1Store` are this table on their
 * connections.
 * @typeParam Tx the handle `complete` takes to write in a transaction (or, on D1, in a batch).
 */
export abstract class ReceiptsTable<Tx> implements core.Store<Tx>, OnConnection {
  /** What this store supports. */
  readonly capabilities: core.StoreCapabilities;
  /** The dialect detected from the connection. */
  readonly dialect: SqlDialect;
  /** The receipts table name. */
  readonly table: string;
  /** @internal The connection its statements run on. */
  readonly [CONNECTION]: ConnectionIdentity;
  /** @internal Where its statements run. */
  protected readonly runner: StatementRunner;
  /** @internal The dialect's fragments. */
  protected readonly spec: DialectSpec;
  /** @internal Its statements. */
  protected readonly sql: Queries;
  private readonly firstRuns: FirstRunsScope;
  private readonly ignored: IgnoredTable;

  protected constructor({ runner, connection, table, capabilities }: ReceiptsTableSetup) {
    this.runner = runner;
    this.capabilities = capabilities;
    this.dialect = runner.dialect;
    this.table = table;
    this[CONNECTION] = connection;
    this.spec = dialects[this.dialect];
    this.sql = buildQueries(this.spec, this.table);
    this.firstRuns = { runner, spec: this.spec, sql: this.sql };
    this.ignored = new IgnoredTable(runner, this.spec, table);
  }

  /** One `INSERT` that the unique index arbitrates; the loser reads the existing row. */
  async claim(key: core.KeyLike, { fingerprint }: ClaimInput): Promise<core.ClaimResult> {
    if (this.runner.busy?.()) {
      // The one connection is held by a handler's transaction: a completed receipt is answered
      // from a read at once instead of queueing the claim behind it, so a replay never waits for
      // someone else's handler.
      const existing = await this.read(key);
      if (existing?.status === 'completed') return { won: false, receipt: existing };
    }
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const claimed = await this.claimRound(key, fingerprint);
      if (claimed) return claimed;
      // No row: purged between the INSERT and the read (for a won INSERT: taken over, finished and
      // purged since). Claim again.
    }
    throw new Error(
      `SqlStore: could not claim or read ${key.provider}/${key.externalId} after ${CLAIM_ROUNDS} rounds`,
    );
  }

  /** One claim: the INSERT, and the read of the receipt when the INSERT did not return it. */
  private async claimRound(
    key: core.KeyLike,
    fingerprint: string | null,
  ): Promise<core.ClaimResult | undefined> {
    let won = false;
    let read: QueryResult | undefined;
    try {
      const inserted = await this.insertClaim(key, fingerprint);
      read = inserted.read;
      const row = inserted.rows[0];
      if (row) return { won: Number(row.won) === 1, receipt: toReceipt(row) } as core.ClaimResult;
      // Without RETURNING (MySQL) the affected count says whether this INSERT won, and the
      // insert id carries the claim time it wrote: the receipt is known without a read.
      won = inserted.affected === 1;
      const { insertId } = inserted;
      if (won && this.spec.attemptsReturningClaimTime && insertId && insertId > 0)
        return { won: true, receipt: claimedReceipt(key, fingerprint, insertId) };
    } catch (error) {
      if (!isDuplicateKey(this.spec, error)) throw error;
    }
    const row = read?.rows[0];
    const receipt = row ? toReceipt(row) : await this.read(key);
    if (!receipt) return undefined;
    // A won INSERT wrote attempts = 1. The read is a separate statement: a worker that stalled
    // before it past the stale threshold finds the receipt of whoever took over since (attempts
    // above 1). That claim is lost, before any handler ran: never adopt the other's token.
    if (won)
      return receipt.status === 'processing' && receipt.attempts === 1
        ? { won: true, receipt }
        : { won: false, receipt };
    return { won: false, receipt };
  }

  /**
   * The claim's INSERT: with the read of the existing row in the same statement where the dialect
   * joins them, or in the same round trip where the connection batches (D1).
   */
  private async insertClaim(
    key: core.KeyLike,
    fingerprint: string | null,
  ): Promise<QueryResult & { read?: QueryResult }> {
    const params = [key.provider, key.externalId, fingerprint];
    if (this.sql.claimReadsExisting) params.push(key.provider, key.externalId);
    if (!this.runner.batch || this.sql.claimReadsExisting)
      return this.runner.query(this.sql.claim, params);
    const [inserted, read] = await this.runner.batch([
      { sql: this.sql.claim, params },
      { sql: this.sql.find, params: [key.provider, key.externalId] },
    ]);
    return { ...inserted!, read: read! };
  }

  /**
   * One conditional `UPDATE` fenced by `attempts`; staleness is judged by the database clock. A
   * given `fingerprint` (string or `null`) is recorded by that same `UPDATE`.
   */
  async reclaim(
    key: core.KeyLike,
    { attempts, staleAfterMs, fingerprint }: ReclaimInput,
  ): Promise<core.ObservedReceipt | null> {
    const where = [key.provider, key.externalId, attempts, staleAfterMs];
    const result =
      fingerprint === undefined
        ? await this.runner.query(this.sql.reclaim, where)
        : await this.runner.query(this.sql.reclaimFingerprint, [fingerprint, ...where]);
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
    key: core.KeyLike,
    { attempts, claimedAt, response }: CompleteInput,
    transaction?: Tx,
  ): Promise<boolean> {
    const params = [response, key.provider, key.externalId, attempts];
    const result =
      claimedAt === undefined
        ? await this.runner.query(this.sql.complete, params, transaction)
        : await this.runner.query(
            this.sql.completeClaim,
            [...params, claimedAt.getTime()],
            transaction,
          );
    return result.affected === 1;
  }

  /**
   * One conditional `UPDATE` fenced like `complete`. The error text is stored
   * with U+FFFD in place of NUL and of lone surrogates, which PostgreSQL TEXT (and UTF-8) cannot
   * hold: every dialect then stores the same text, and the write cannot fail because of what a
   * handler threw.
   */
  async fail(key: core.KeyLike, { attempts, claimedAt, error }: FailInput): Promise<boolean> {
    const params = [storableText(error), key.provider, key.externalId, attempts];
    const result =
      claimedAt === undefined
        ? await this.runner.query(this.sql.fail, params)
        : await this.runner.query(this.sql.failClaim, [...params, claimedAt.getTime()]);
    return result.affected === 1;
  }

  /** Reads the receipt with the database's "now" in the same statement. */
  find(key: core.KeyLike, _at: core.At): Promise<core.ObservedReceipt | null> {
    return this.read(key);
  }

  /**
   * Deletes finished receipts (of `provider`, when given) one statement per chunk of `chunkSize`
   * rows (default 1000), never a `processing` one; then the ignored-event totals of hours that
   * ended before the cut-off, in one statement.
   */
  async purge(input: PurgeInput): Promise<number> {
    const { now, olderThanMs, provider } = input;
    const statement = provider === undefined ? this.sql.purgeChunk : this.sql.purgeProviderChunk;
    const deleted = await deleteInChunks(
      (sql, params) => this.runner.query(sql, params),
      statement,
      provider === undefined ? [olderThanMs] : [provider, olderThanMs],
      purgeChunkSize(input),
    );
    await this.ignored.purge(now - olderThanMs, provider);
    return deleted;
  }

  /**
   * Which of `keys` have a receipt: a primary-key lookup per key, one statement per 100 keys; in
   * `transaction` when given (on a connection with transactions).
   */
  known(keys: readonly core.KeyLike[], _at: core.At, transaction?: Tx): Promise<boolean[]> {
    return knownKeys(this.firstRuns, keys, this.inTransaction(transaction));
  }

  /**
   * `completed` receipts for first runs, all or nothing, in one statement (at most 1000 entries):
   * a key with a receipt fails it whole; inside `transaction`, where a failed statement may end the
   * transaction (PostgreSQL), keys with a receipt are skipped and what was written is undone.
   * @throws {ConfigError} naming `entries` for more than 1000.
   */
  recordFirst(entries: readonly FirstRun[], _at: core.At, transaction?: Tx): Promise<boolean> {
    return recordFirstRuns(this.firstRuns, entries, this.inTransaction(transaction));
  }

  /**
   * Adds to the ignored-event totals in `<table>_ignored` (one upsert per 25 totals, each row
   * atomic); the table comes with `Schema.createTable` and the CLI's `migrate`.
   */
  addIgnored(counts: readonly IgnoredCount[], _at: core.At): Promise<void> {
    return this.ignored.add(counts);
  }

  /** The ignored-event totals since `since` (its hour), the largest first. */
  ignoredCounts(query: IgnoredQuery): Promise<IgnoredTotal[]> {
    return this.ignored.totals(query);
  }

  /** `transaction` where the connection has transactions; nothing on D1, whose handle is a list of statements. */
  private inTransaction(transaction: Tx | undefined): Tx | undefined {
    return this.capabilities.transactional ? transaction : undefined;
  }

  /** @internal The receipt of `key`, with the database's "now". */
  protected async read(key: core.KeyLike): Promise<core.ObservedReceipt | null> {
    const { rows } = await this.runner.query(this.sql.find, [key.provider, key.externalId]);
    return rows[0] ? toReceipt(rows[0]) : null;
  }
}
