/**
 * @module The statements of `ReceiptsAdmin` beyond the store's own (queries.ts), built from the
 * dialect table like them: `?` placeholders, values always bound.
 */
import type { DialectSpec } from '../dialects';
import { finishedBefore, readColumns } from '../receipts/queries';

/** Conditions on a time column against the database clock. Params: the milliseconds back. */
function clockConditions(spec: DialectSpec) {
  const olderThan = (column: string) => `${column} <= ${spec.minusMs(spec.now)}`;
  const within = (column: string) => `${column} >= ${spec.minusMs(spec.now)}`;
  return {
    olderThan,
    within,
    finishedWithin: `status IN ('completed', 'failed') AND ${within('finished_at')}`,
  };
}

/** What `status` and `activity` read: counts, handler times, the clock. */
function reportStatements(spec: DialectSpec, t: string) {
  const { olderThan, within, finishedWithin } = clockConditions(spec);
  const handlerMs = `${spec.toMs('finished_at')} - ${spec.toMs('claimed_at')}`;
  return {
    /** Params: staleAfterMs. */
    counts:
      `SELECT provider, status, COUNT(*) AS n, ` +
      `SUM(CASE WHEN status = 'processing' AND ${olderThan('claimed_at')} THEN 1 ELSE 0 END) AS stuck, ` +
      `MIN(${spec.toMs('claimed_at')}) AS oldest_ms, MAX(${spec.nowMs}) AS db_now ` +
      `FROM ${t} GROUP BY provider, status ORDER BY provider, status`,
    /** Params: sinceMs. */
    finished: `SELECT status, COUNT(*) AS n FROM ${t} WHERE ${finishedWithin} GROUP BY status`,
    /** Params: sinceMs, limit. */
    durations:
      `SELECT ${handlerMs} AS ms FROM ${t} ` +
      `WHERE status = 'completed' AND ${within('finished_at')} ORDER BY finished_at DESC LIMIT ?`,
    /** Finished receipts per time bucket and status, with the handler times. Params: bucketMs, sinceMs. */
    activity:
      `SELECT ${spec.bucketOf(spec.toMs('finished_at'))} AS bucket, status, COUNT(*) AS n, ` +
      `SUM(${handlerMs}) AS total_ms, MAX(${handlerMs}) AS max_ms ` +
      `FROM ${t} WHERE ${finishedWithin} GROUP BY bucket, status`,
    /** The database clock in epoch milliseconds. */
    now: `SELECT ${spec.nowMs} AS db_now`,
  };
}

/** A listing of receipts: the statement, its keyset page condition and its filters' conditions. */
function listingStatements(spec: DialectSpec, t: string) {
  const { olderThan, within } = clockConditions(spec);
  return {
    /**
     * A listing; `where` holds the filters' conditions (already built from fixed fragments). Its
     * order, claim time then key, is the order of the index on (claimed_at, provider, external_id),
     * read forward or backward: a page reads about `limit` rows of it, whatever the table's size.
     * The key breaks ties of claim time, so that a page can start after any row ({@link after});
     * `claimed_text` is the claim time exactly as stored, for that cursor.
     */
    list: (where: readonly string[], order: 'newest' | 'oldest') => {
      const direction = order === 'oldest' ? 'ASC' : 'DESC';
      return (
        `SELECT ${readColumns(spec, { summary: true })}, ${spec.timeText('claimed_at')} AS claimed_text FROM ${t}` +
        (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
        ` ORDER BY claimed_at ${direction}, provider ${direction}, external_id ${direction} LIMIT ?`
      );
    },
    /**
     * The keyset condition of the page after a row, in the listing's order: a later (or earlier)
     * claim time, or the same one and a later key. The column is compared as stored with the
     * cursor's exact claim time (never a function of the column), so the index serves it as a
     * range and no row is skipped or repeated at any precision; the first conjunct is that range.
     * Params: claimedText, claimedText, provider, provider, externalId.
     */
    after: (order: 'newest' | 'oldest') => {
      const past = order === 'oldest' ? '>' : '<';
      return (
        `claimed_at ${past}= ${spec.atText} AND (claimed_at ${past} ${spec.atText} OR ` +
        `provider ${past} ? OR (provider = ? AND external_id ${past} ?))`
      );
    },
    /** Claimed at or after a time, the column compared as stored. Params: epoch ms. */
    claimedFrom: `claimed_at >= ${spec.atMs}`,
    /** Claimed before a time, the column compared as stored. Params: epoch ms. */
    claimedBefore: `claimed_at < ${spec.atMs}`,
    stuckCondition: `status = 'processing' AND ${olderThan('claimed_at')}`,
    sinceCondition: `(${within('claimed_at')} OR ${within('finished_at')})`,
  };
}

/** The table's upkeep: what a purge would delete, whether the table exists, forgetting a receipt. */
function upkeepStatements(spec: DialectSpec, t: string) {
  return {
    /** Params: olderThanMs. */
    purgeable: `SELECT COUNT(*) AS n FROM ${t} WHERE ${finishedBefore(spec)}`,
    /** Params: provider, olderThanMs. */
    purgeableOfProvider: `SELECT COUNT(*) AS n FROM ${t} WHERE provider = ? AND ${finishedBefore(spec)}`,
    exists: `SELECT 1 AS present FROM ${t} WHERE 1 = 0`,
    /** A finished receipt, fenced on the attempts and claim time read. Params: provider, externalId, attempts, claimedMs. */
    forget:
      `DELETE FROM ${t} WHERE provider = ? AND external_id = ? AND status IN ('completed', 'failed') ` +
      `AND attempts = ? AND ${spec.toMs('claimed_at')} = ?`,
  };
}

/** The admin statements for one dialect and table; `?` placeholders, values always bound. */
export function adminStatements(spec: DialectSpec, table: string) {
  const t = spec.quote(table);
  return {
    ...reportStatements(spec, t),
    ...listingStatements(spec, t),
    ...upkeepStatements(spec, t),
  };
}
