/**
 * @module `inbox list` and `outbox list`: stored deliveries (messages) by status, provider (sender)
 * and time received (recorded), in the order they were stored.
 */
import type { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import type { SqlInbox } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { INBOX_ROWS, type Row, type RowTable, tableOf, withHeaders } from '../row-tables';
import { type Context, withInbox } from '../session';
import { printListing } from './layout';

export { ago, due } from '../row-tables';

/** Options of `inbox list` (and `outbox list`, whose `--sender` is `provider` here). */
export interface InboxListCommandOptions {
  readonly status?: DeliveryStatus;
  readonly provider?: string;
  /** Only deliveries received within this many milliseconds before now (this machine's clock). */
  readonly since?: number;
  readonly limit: number;
  readonly json?: boolean;
}

/**
 * The rows of the table `rows` names that `query` lists, with their headers where the table lists
 * them (the outbox's names and receipts).
 */
export function listRows(
  context: Context,
  rows: RowTable,
  query: Parameters<SqlInbox['list']>[0],
): Promise<Row[]> {
  return withInbox(
    context,
    async (inbox) => withHeaders(rows, inbox, await inbox.list(query)),
    rows,
  );
}

/** A delivery for `--json`: dates as ISO strings, the body's size but never its bytes. */
export const deliveryJson = INBOX_ROWS.json;

export async function inboxList(
  context: Context,
  options: InboxListCommandOptions,
  rows: RowTable = INBOX_ROWS,
): Promise<number> {
  const { out } = context;
  const listed = await listRows(context, rows, {
    ...(options.status ? { status: options.status } : {}),
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    ...(options.since !== undefined ? { receivedFrom: new Date(Date.now() - options.since) } : {}),
    limit: options.limit,
  });
  printListing(out, options.json, {
    name: rows.many,
    items: listed,
    json: rows.json,
    table: (items: readonly Row[]) => tableOf(rows.columns.list, items),
    limit: options.limit,
  });
  return ExitCode.OK;
}
