/** @module The store's statements as Drizzle SQL, and the driver's error under Drizzle's. */
import { DrizzleQueryError, sql, type SQL, type SQLChunk } from 'drizzle-orm';

/** The store's `?` statement as Drizzle SQL: the text as is, each `?` a bound parameter. */
export function statement(text: string, params: readonly unknown[]): SQL {
  const parts = text.split('?');
  const chunks: SQLChunk[] = [sql.raw(parts[0]!)];
  for (let i = 1; i < parts.length; i++) chunks.push(sql.param(params[i - 1]), sql.raw(parts[i]!));
  return sql.join(chunks);
}

/** Drizzle wraps a failed statement's error (its message quoting the statement): the driver's own. */
export const unwrap = (error: unknown): unknown =>
  error instanceof DrizzleQueryError && error.cause !== undefined ? error.cause : error;
