/**
 * @module One command's session with the database: open it, check the table, run, close; and the
 * translation of what can go wrong into messages a user can act on and exit codes.
 */
import { ErrorCode, isIdempotencyError } from '@webhook-idempotency/core';
import { existsSync } from 'node:fs';
import {
  DEFAULT_INBOX_TABLE,
  DEFAULT_OUTBOX_TABLE,
  DEFAULT_TABLE,
  ReceiptsAdmin,
  SqlInbox,
} from '@webhook-idempotency/sql';
import { type Opened, open, redact, type Target } from './connect';
import { CliError, ExitCode } from './exit-codes';
import type { CliIo, Printer } from './output';

/** What every command gets: where to write, where the receipts are, the global options. */
export interface Context {
  readonly io: CliIo;
  readonly out: Printer;
  readonly err: Printer;
  readonly target: Target;
  /** The receipts table (`--table`). */
  readonly table: string;
  /** The inbox deliveries table (`--inbox-table`). */
  readonly inboxTable: string;
  /** The outbox messages table (`--outbox-table`). */
  readonly outboxTable: string;
  readonly staleAfterMs: number;
}

/** The outbox table's default name (`--outbox-table`), as `SqlOutbox` has it. */
export { DEFAULT_OUTBOX_TABLE };

/** An inbox-shaped table a command opens: its name in the context, and how `migrate` creates it. */
export interface LeasedTable {
  readonly table: (context: Context) => string;
  readonly tableOption: '--inbox-table' | '--outbox-table';
  readonly defaultTable: string;
  readonly migrateOption: '--inbox' | '--outbox';
}

/** The inbox deliveries table. */
export const INBOX_TABLE: LeasedTable = {
  table: (context) => context.inboxTable,
  tableOption: '--inbox-table',
  defaultTable: DEFAULT_INBOX_TABLE,
  migrateOption: '--inbox',
};

/** The outbox messages table: the inbox's shape, on a table of its own. */
export const OUTBOX_TABLE: LeasedTable = {
  table: (context) => context.outboxTable,
  tableOption: '--outbox-table',
  defaultTable: DEFAULT_OUTBOX_TABLE,
  migrateOption: '--outbox',
};

/** The provider and id a receipt or delivery is stored under. */
export interface EventKey {
  readonly provider: string;
  readonly externalId: string;
}

// What the drivers say when the server cannot be reached or refuses the login.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  '28P01', // PostgreSQL: password authentication failed
  '28000', // PostgreSQL: no such role / not allowed
  '3D000', // PostgreSQL: database does not exist
]);

/** The driver's own error under a StoreError (and an AggregateError of several addresses). */
function driverError(error: unknown): { code?: string; message: string } {
  type Shape = { cause?: unknown; errors?: unknown[]; code?: unknown; message?: unknown };
  let current = error as Shape;
  while (isIdempotencyError(current) && current.cause) current = current.cause as Shape;
  const { errors } = current as Shape;
  if (!current.message && Array.isArray(errors) && errors[0]) current = errors[0] as Shape;
  const code = typeof current.code === 'string' ? current.code : undefined;
  const message =
    typeof current.message === 'string' && current.message ? current.message : String(current);
  return code === undefined ? { message } : { code, message };
}

/** True when `error` says the server could not be reached or refused the connection. */
function isConnectionError(error: unknown): boolean {
  const { code, message } = driverError(error);
  return (
    (code !== undefined && CONNECTION_CODES.has(code)) ||
    /timeout exceeded when trying to connect|no database connection within|connect ETIMEDOUT/i.test(
      message,
    )
  );
}

/**
 * Opens the target, checks that the table exists, runs `work` with a {@link ReceiptsAdmin}, and
 * closes the connection whatever happens.
 * @throws {CliError} `CONNECTION` (unreachable, login refused, driver missing), `TABLE_MISSING`.
 */
export async function withAdmin<T>(
  context: Context,
  work: (admin: ReceiptsAdmin, opened: Opened) => Promise<T>,
  { create = false, checkTable = true } = {},
): Promise<T> {
  const { target, table } = context;
  // A SQLite file that is not there holds no table either: migrate creates both.
  if (target.dialect === 'sqlite' && !create && !existsSync(target.location))
    throw missingTable(context, ' (no such file)');
  const opened = await open(target, { create });
  try {
    const admin = new ReceiptsAdmin(opened.db, { table, acquireTimeoutMs: 10_000 });
    if (checkTable && !(await probe(context, admin))) throw missingTable(context, '');
    return await work(admin, opened);
  } catch (error) {
    throw explain(context, error);
  } finally {
    await opened.close().catch(() => undefined);
  }
}

/** The receipts table is missing: run migrate. */
export function missingTable(context: Context, detail: string): CliError {
  const { table, target } = context;
  return new CliError(
    ExitCode.TABLE_MISSING,
    `Table ${table} does not exist in ${target.display}${detail}. Create it with: webhook-idempotency migrate` +
      (table === DEFAULT_TABLE ? '' : ` --table ${table}`),
  );
}

/** The inbox (or outbox) table is missing: run migrate with its option. */
function missingRows(context: Context, rows: LeasedTable, detail: string): CliError {
  const name = rows.table(context);
  return new CliError(
    ExitCode.TABLE_MISSING,
    `Table ${name} does not exist in ${context.target.display}${detail}. Create it with: webhook-idempotency migrate ${rows.migrateOption}` +
      (name === rows.defaultTable ? '' : ` ${rows.tableOption} ${name}`),
  );
}

/**
 * As {@link withAdmin}, for the inbox and outbox commands: opens the target, checks that the
 * inbox table (or `rows`' table: the outbox's) exists, runs `work` with a {@link SqlInbox} over
 * it, and closes the connection.
 * @throws {CliError} `CONNECTION` (unreachable, login refused, driver missing), `TABLE_MISSING`.
 */
export async function withInbox<T>(
  context: Context,
  work: (inbox: SqlInbox, opened: Opened) => Promise<T>,
  rows: LeasedTable = INBOX_TABLE,
): Promise<T> {
  const { target } = context;
  if (target.dialect === 'sqlite' && !existsSync(target.location))
    throw missingRows(context, rows, ' (no such file)');
  const opened = await open(target);
  try {
    // The outbox table is an inbox-shaped table: the inbox's store reads and repairs it.
    const inbox = new SqlInbox(opened.db, { table: rows.table(context), acquireTimeoutMs: 10_000 });
    if (!(await inbox.tableExists())) throw missingRows(context, rows, '');
    return await work(inbox, opened);
  } catch (error) {
    throw explain(context, error);
  } finally {
    await opened.close().catch(() => undefined);
  }
}

/** tableExists, with a connection failure turned into a CliError naming the host. */
export async function probe(context: Context, admin: ReceiptsAdmin): Promise<boolean> {
  try {
    return await admin.tableExists();
  } catch (error) {
    throw explain(context, error);
  }
}

/** Any error as a CliError: connection problems as `CONNECTION`, the rest as `ERROR`; no password in either. */
export function explain(context: Context, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const { target } = context;
  // An option the operations API refused (its message names it): a usage error, not the database's.
  if (isIdempotencyError(error) && error.code === ErrorCode.CONFIG)
    return new CliError(ExitCode.USAGE, error.message, { cause: error });
  const { code, message } = driverError(error);
  const detail = redact(target, code && !message.includes(code) ? `${message} (${code})` : message);
  if (isConnectionError(error))
    return new CliError(ExitCode.CONNECTION, `Cannot connect to ${target.display}: ${detail}`, {
      cause: error,
    });
  return new CliError(ExitCode.ERROR, `The database failed (${target.display}): ${detail}`, {
    cause: error,
  });
}
