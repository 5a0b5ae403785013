/**
 * @module The statements of `ReceiptsAdmin` beyond the store's own (queries.ts), built from the
 * dialect table like them: `?` placeholders, values always bound.
 */
import type { DialectSpec } from './dialects';
import { finishedBefore, readColumns } from './queries';

/** The admin statements for one dialect and table; `?` placeholders, values always bound. */
export function adminStatements(spec: DialectSpec, table: string) {
  const t = spec.quote(table);
  const olderThan = (column: string) => `${column} <= ${spec.minusMs(spec.now)}`;
  const within = (column: string) => `${column} >= ${spec.minusMs(spec.now)}`;
  const finishedWithin = `status IN ('completed', 'failed') AND ${within('finished_at')}`;
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
      `SELECT ${spec.toMs('finished_at')} - ${spec.toMs('claimed_at')} AS ms FROM ${t} ` +
      `WHERE status = 'completed' AND ${within('finished_at')} ORDER BY finished_at DESC LIMIT ?`,
    /**
     * A listing; `where` holds the filters' conditions (already built from fixed fragments). The
     * key breaks ties of claim time, so that a page can start after any row ({@link after}).
     */
    list: (where: readonly string[], order: 'newest' | 'oldest') => {
      const direction = order === 'oldest' ? 'ASC' : 'DESC';
      return (
        `SELECT ${readColumns(spec, { summary: true })} FROM ${t}` +
        (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
        ` ORDER BY claimed_at ${direction}, provider ${direction}, external_id ${direction} LIMIT ?`
      );
    },
    /**
     * The keyset condition of the page after a row, in the listing's order: a later (or earlier)
     * claim time, or the same one and a later key. Compared as the reads return the claim time
     * (whole milliseconds). Params: claimedMs, claimedMs, provider, provider, externalId.
     */
    after: (order: 'newest' | 'oldest') => {
      const past = order === 'oldest' ? '>' : '<';
      const claimed = spec.toMs('claimed_at');
      return (
        `(${claimed} ${past} ? OR (${claimed} = ? AND ` +
        `(provider ${past} ? OR (provider = ? AND external_id ${past} ?))))`
      );
    },
    /** Claimed at or after a time. Params: epoch ms. */
    claimedFrom: `${spec.toMs('claimed_at')} >= ?`,
    /** Claimed before a time. Params: epoch ms. */
    claimedBefore: `${spec.toMs('claimed_at')} < ?`,
    /** Finished receipts per time bucket and status, with the handler times. Params: bucketMs, sinceMs. */
    activity:
      `SELECT ${spec.bucketOf(spec.toMs('finished_at'))} AS bucket, status, COUNT(*) AS n, ` +
      `SUM(${spec.toMs('finished_at')} - ${spec.toMs('claimed_at')}) AS total_ms, ` +
      `MAX(${spec.toMs('finished_at')} - ${spec.toMs('claimed_at')}) AS max_ms ` +
      `FROM ${t} WHERE ${finishedWithin} GROUP BY bucket, status`,
    /** The database clock in epoch milliseconds. */
    now: `SELECT ${spec.nowMs} AS db_now`,
    stuckCondition: `status = 'processing' AND ${olderThan('claimed_at')}`,
    sinceCondition: `(${within('claimed_at')} OR ${within('finished_at')})`,
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
