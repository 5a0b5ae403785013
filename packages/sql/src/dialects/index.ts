/**
 * @module The one table of dialect differences, which every file that builds or runs a statement
 * reads: each dialect's row (postgres.ts, mysql.ts, sqlite.ts) holds every fragment the receipts',
 * the inbox's and the admin's statements are written from (receipts/queries.ts, inbox/queries.ts,
 * admin/queries.ts, ddl.ts), and what a connection needs to know of its dialect (transaction
 * bounds, placeholders, one writer or many). Nothing else in the package branches on a dialect.
 */
import type { StatementRunner } from '../connections/executor';
import { mysql } from './mysql';
import type { SqlDialect } from './name';
import { postgres } from './postgres';
import { sqlite } from './sqlite';
import type { DialectSpec } from './spec';

export type { SqlDialect } from './name';
export type { ChunkDelete, DialectSpec, InboxFragments } from './spec';

/** Every dialect, by name. */
export const dialects: Readonly<Record<SqlDialect, DialectSpec>> = { postgres, mysql, sqlite };

function hasCode(codes: ReadonlySet<string | number>, error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno, errcode, sqlState } = error as {
    code?: unknown;
    errno?: unknown;
    errcode?: unknown;
    sqlState?: unknown;
  };
  return (
    (typeof code === 'string' && codes.has(code)) ||
    (typeof sqlState === 'string' && codes.has(sqlState)) ||
    (typeof errno === 'number' && codes.has(errno)) ||
    (typeof errcode === 'number' && codes.has(errcode))
  );
}

/** True when `error` is a unique-index violation of `dialect`. */
export function isDuplicateKey(dialect: DialectSpec, error: unknown): boolean {
  return hasCode(dialect.duplicateKeyCodes, error);
}

/** True when `error` says that the statement's table does not exist. */
export function isMissingTable(dialect: DialectSpec, error: unknown): boolean {
  const { codes, message } = dialect.missingTable;
  // Not `instanceof Error`: a driver's error class may come from another realm (a test sandbox).
  const text = (error as { message?: unknown } | null)?.message;
  return hasCode(codes, error) && (!message || (typeof text === 'string' && message.test(text)));
}

/**
 * True when `exists` (a statement of the table that reads no row) runs on `runner`; false when
 * the database reports the table missing. Any other failure is thrown as the driver gave it.
 */
export async function tableExists(
  runner: StatementRunner,
  dialect: DialectSpec,
  exists: string,
): Promise<boolean> {
  try {
    await runner.query(exists, []);
    return true;
  } catch (error) {
    if (isMissingTable(dialect, error)) return false;
    throw error;
  }
}

/** True when `error` says the statement lost a deadlock or a serialization conflict and may simply run again. */
export function isDeadlock(dialect: DialectSpec, error: unknown): boolean {
  return hasCode(dialect.deadlockCodes, error);
}
