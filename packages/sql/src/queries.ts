/**
 * @module Every statement the store runs, written once from the dialect fragments. `?` is the
 * placeholder everywhere (the pg driver gets `$n`); values are always bound, never spliced in.
 */
import type { DialectSpec } from './dialects';

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
  /** Params: response, provider, externalId, attempts. */
  readonly complete: string;
  /** Params: error, provider, externalId, attempts. */
  readonly fail: string;
  /** Delete one batch of finished receipts. Params: olderThanMs, batchSize. */
  readonly purgeBatch: string;
  /** {@link Queries.purgeBatch} for one provider: the provider is the first parameter. */
  readonly purgeProviderBatch: string;
}

/** Builds the statements for `table` (an identifier already validated). */
export function buildQueries(dialect: DialectSpec, table: string): Queries {
  const t = dialect.quote(table);
  const columns = [
    'provider',
    'external_id',
    'status',
    'response',
    'fingerprint',
    'attempts',
    'error',
    `${dialect.toMs('claimed_at')} AS claimed_ms`,
    `${dialect.toMs('finished_at')} AS finished_ms`,
    `${dialect.nowMs} AS db_now`,
  ].join(', ');
  const returning = dialect.returning ? ` RETURNING ${columns}` : '';
  const byKey = 'provider = ? AND external_id = ?';
  const owned = `${byKey} AND status = 'processing' AND attempts = ?`;
  const finished = "status IN ('completed', 'failed')";
  const find = `SELECT ${columns} FROM ${t} WHERE ${byKey}`;
  const insert =
    `INSERT INTO ${t} (provider, external_id, status, attempts, fingerprint, claimed_at) ` +
    `VALUES (?, ?, 'processing', 1, ?, ${dialect.now})${dialect.onConflictDoNothing}${returning && `${returning}, 1 AS won`}`;
  return {
    claim: dialect.claimOrRead ? dialect.claimOrRead(insert, `SELECT ${columns}, 0 AS won FROM ${t} WHERE ${byKey}`) : insert,
    claimReadsExisting: !!dialect.claimOrRead,
    find,
    reclaim:
      `UPDATE ${t} SET status = 'processing', attempts = attempts + 1, claimed_at = ${dialect.now}, ` +
      `finished_at = NULL, error = NULL WHERE ${byKey} AND attempts = ? ` +
      `AND (status = 'failed' OR (status = 'processing' AND claimed_at <= ${dialect.minusMs(dialect.now)}))${returning}`,
    complete: `UPDATE ${t} SET status = 'completed', response = ?, finished_at = ${dialect.now} WHERE ${owned}`,
    fail: `UPDATE ${t} SET status = 'failed', error = ?, finished_at = ${dialect.now} WHERE ${owned}`,
    purgeBatch: dialect.deleteBatch(t, `${finished} AND finished_at < ${dialect.minusMs(dialect.now)}`, finished),
    purgeProviderBatch: dialect.deleteBatch(t, `provider = ? AND ${finished} AND finished_at < ${dialect.minusMs(dialect.now)}`, finished),
  };
}
