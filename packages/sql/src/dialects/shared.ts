/** @module What rows of the dialect table share: quoting, the keyed chunk delete, numbered placeholders. */
import type { ChunkDelete } from './spec';

/** Quotes an identifier in double quotes (PostgreSQL, SQLite). */
export const doubleQuote = (identifier: string): string => `"${identifier}"`;

/**
 * A chunk's `DELETE` by key: at most `chunkSize` rows that `where` holds on. The whole condition
 * sits on the DELETE itself, not only in the subquery that picks the chunk: PostgreSQL
 * re-evaluates only the outer WHERE on the latest version of a row it had to wait for (never the
 * IN subquery). A receipt taken over meanwhile (`processing`), or taken over and finished again
 * (`completed` with a fresh `finished_at`), then no longer matches and stays. SQLite runs the
 * statement under its database-wide write lock, so nothing changes in between; it gets the same
 * statement for one code path.
 */
export const keyedChunk = (table: string, where: string): ChunkDelete => ({
  sql: `DELETE FROM ${table} WHERE ${where} AND (provider, external_id) IN (SELECT provider, external_id FROM ${table} WHERE ${where} LIMIT ?)`,
  params: (whereParams, chunkSize) => [...whereParams, ...whereParams, chunkSize],
});

/** `?` placeholders → `$1, $2, …` (the statements contain no other `?`). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
