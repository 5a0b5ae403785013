/**
 * @module Every statement the store runs, written once from the dialect fragments. `?` is the
 * placeholder everywhere (the pg driver gets `$n`); values are always bound, never spliced in.
 */
import type { ChunkDelete, DialectSpec } from '../dialects';

/** The store's statements for one dialect and table. */
export interface Queries {
  /**
   * Insert a `processing` receipt; the unique index arbitrates. Params: provider, externalId,
   * fingerprint (then provider, externalId again when {@link Queries.claimReadsExisting}). Rows
   * returned carry `won` (1: inserted, 0: the existing row).
   */
  readonly claim: string;
  /** The claim statement also returns an existing row (one round trip for a duplicate). */
  readonly claimReadsExisting: boolean;
  /** Read one receipt with the database's "now". Params: provider, externalId. */
  readonly find: string;
  /** Take over a failed or stale receipt, fenced by attempts. Params: provider, externalId, attempts, staleAfterMs. */
  readonly reclaim: string;
  /** {@link Queries.reclaim} that also records the new delivery's fingerprint. Params: fingerprint, then those of `reclaim`. */
  readonly reclaimFingerprint: string;
  /** Fenced by attempts only (a caller that gave no claim time). Params: response, provider, externalId, attempts. */
  readonly complete: string;
  /** Fenced by attempts and the claim time. Params: those of `complete`, then claimedMs. */
  readonly completeClaim: string;
  /** Fenced by attempts only. Params: error, provider, externalId, attempts. */
  readonly fail: string;
  /**
   * The condition that holds on a claim's own receipt: `processing`, with its attempts and claim
   * time (what `completeClaim` and `failClaim` are fenced by). Params: provider, externalId,
   * attempts, claimedMs.
   */
  readonly ownedClaim: string;
  /** Fenced by attempts and the claim time. Params: those of `fail`, then claimedMs. */
  readonly failClaim: string;
  /** Delete one batch of finished receipts. Where params: olderThanMs. */
  readonly purgeChunk: ChunkDelete;
  /** Of `keys` keys, those with a receipt (provider, external_id). Params: provider and externalId of each. */
  known(keys: number): string;
  /**
   * `completed` receipts (attempts 1) for `keys` new keys, one statement that a key with a receipt
   * fails whole (the duplicate key): finished now, claimed the handler's time before, so
   * `finished_at − claimed_at` is each one's own handler time. Params: provider, externalId,
   * response and handler milliseconds (a whole number) of each.
   */
  recordFirst(keys: number): string;
  /**
   * {@link Queries.recordFirst} for inside a transaction, where a failed statement may end the
   * transaction (PostgreSQL): keys that have a receipt are skipped instead, where the dialect can
   * (`ON CONFLICT DO NOTHING`, returning the keys it wrote; MySQL still raises the duplicate key,
   * which undoes that statement alone). Same params.
   */
  recordSkipping(keys: number): string;
  /**
   * Undoes `keys` receipts a {@link Queries.recordSkipping} wrote in the transaction under way.
   * Params: provider and externalId of each.
   */
  unrecord(keys: number): string;
  /** {@link Queries.purgeChunk} for one provider. Where params: provider, olderThanMs. */
  readonly purgeProviderChunk: ChunkDelete;
}

/**
 * The columns every read returns, as `rows.ts#toReceipt` maps them: timestamps as epoch
 * milliseconds and the database's "now" (`db_now`) from the same statement. Without `response`
 * and `fingerprint` when `summary` is set (listings, which need not carry stored answers).
 */
export function readColumns(dialect: DialectSpec, { summary = false } = {}): string {
  return [
    'provider',
    'external_id',
    'status',
    ...(summary ? [] : ['response', 'fingerprint']),
    'attempts',
    'error',
    `${dialect.toMs('claimed_at')} AS claimed_ms`,
    `${dialect.toMs('finished_at')} AS finished_ms`,
    `${dialect.nowMs} AS db_now`,
  ].join(', ');
}

/** What `purge` deletes: finished receipts whose `finished_at` is at least `?` milliseconds ago. */
export function finishedBefore(dialect: DialectSpec): string {
  return `status IN ('completed', 'failed') AND finished_at <= ${dialect.minusMs(dialect.now)}`;
}

/** Builds the statements for `table` (an identifier already validated). */
export function buildQueries(dialect: DialectSpec, table: string): Queries {
  const t = dialect.quote(table);
  const columns = readColumns(dialect);
  const returning = dialect.returning ? ` RETURNING ${columns}` : '';
  const byKey = 'provider = ? AND external_id = ?';
  const owned = `${byKey} AND status = 'processing' AND attempts = ?`;
  // The claim's identity: attempts restarts at 1 after a purge, its claim time does not repeat.
  // The very expression the reads return as claimed_ms, so the value read back matches exactly.
  const ownedClaim = `${owned} AND ${dialect.toMs('claimed_at')} = ?`;
  const takeOver = (set: string) =>
    `UPDATE ${t} SET status = 'processing', attempts = attempts + 1, claimed_at = ${dialect.now}, ` +
    `finished_at = NULL, error = NULL${set} WHERE ${byKey} AND attempts = ? ` +
    `AND (status = 'failed' OR (status = 'processing' AND claimed_at <= ${dialect.minusMs(dialect.now)}))${returning}`;
  const completeSet = `UPDATE ${t} SET status = 'completed', response = ?, finished_at = ${dialect.now} WHERE `;
  const failSet = `UPDATE ${t} SET status = 'failed', error = ?, finished_at = ${dialect.now} WHERE `;
  const expired = finishedBefore(dialect);
  const find = `SELECT ${columns} FROM ${t} WHERE ${byKey}`;
  const recordValues = (keys: number) =>
    `INSERT INTO ${t} (provider, external_id, status, response, attempts, fingerprint, claimed_at, finished_at) VALUES ` +
    Array.from(
      { length: keys },
      () => `(?, ?, 'completed', ?, 1, NULL, ${dialect.minusMs(dialect.now)}, ${dialect.now})`,
    ).join(', ');
  const insert =
    `INSERT INTO ${t} (provider, external_id, status, attempts, fingerprint, claimed_at) ` +
    `VALUES (?, ?, 'processing', ${dialect.attemptsReturningClaimTime ?? '1'}, ?, ${dialect.now})${dialect.onConflictDoNothing}${returning && `${returning}, 1 AS won`}`;
  return {
    claim: dialect.claimOrRead
      ? dialect.claimOrRead(insert, `SELECT ${columns}, 0 AS won FROM ${t} WHERE ${byKey}`)
      : insert,
    claimReadsExisting: !!dialect.claimOrRead,
    find,
    reclaim: takeOver(''),
    reclaimFingerprint: takeOver(', fingerprint = ?'),
    complete: completeSet + owned,
    completeClaim: completeSet + ownedClaim,
    fail: failSet + owned,
    ownedClaim,
    failClaim: failSet + ownedClaim,
    purgeChunk: dialect.deleteChunk(t, expired),
    // One primary-key lookup per key, whatever the table's statistics say: an OR of key pairs, or
    // an IN list per provider, let PostgreSQL's planner read every receipt of the provider from
    // the index on a table it had not analyzed yet.
    // One SELECT with the keys OR'ed (each an equality on the primary key), not a compound of one
    // SELECT per key: D1 refuses compound SELECTs of more than a few terms.
    known: (keys) =>
      `SELECT provider, external_id FROM ${t} WHERE ` +
      Array.from({ length: keys }, () => `(${byKey})`).join(' OR '),
    recordFirst: (keys) => recordValues(keys),
    recordSkipping: (keys) =>
      recordValues(keys) +
      dialect.onConflictDoNothing +
      (dialect.returning ? ' RETURNING provider, external_id' : ''),
    unrecord: (keys) =>
      `DELETE FROM ${t} WHERE status = 'completed' AND attempts = 1 AND (` +
      Array.from({ length: keys }, () => `(${byKey})`).join(' OR ') +
      ')',
    purgeProviderChunk: dialect.deleteChunk(t, `provider = ? AND ${expired}`),
  };
}
