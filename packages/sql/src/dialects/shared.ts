/** @module What rows of the dialect table share: quoting, the keyed chunk delete, numbered placeholders, the SQL PostgreSQL and SQLite write alike. */
import type { ChunkDelete, DialectSpec } from './spec';

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

/** `ON CONFLICT … DO UPDATE` adding the new row's `column` to the stored one (PostgreSQL, SQLite 3.24+). */
export const addOnConflict = (table: string, keys: string, column: string): string =>
  ` ON CONFLICT (${keys}) DO UPDATE SET ${column} = ${table}.${column} + excluded.${column}`;

/**
 * What PostgreSQL and SQLite write alike (MySQL differs in each): double-quoted identifiers, no
 * table options, indexes created beside the table, `ON CONFLICT`, `RETURNING`, and the chunk
 * delete by key.
 */
export const standardSql: Pick<
  DialectSpec,
  | 'quote'
  | 'tableOptions'
  | 'inlineIndexes'
  | 'onConflictDoNothing'
  | 'addOnConflict'
  | 'returning'
  | 'deleteChunk'
> = {
  quote: doubleQuote,
  tableOptions: '',
  inlineIndexes: false,
  onConflictDoNothing: ' ON CONFLICT (provider, external_id) DO NOTHING',
  addOnConflict,
  returning: true,
  deleteChunk: keyedChunk,
};
