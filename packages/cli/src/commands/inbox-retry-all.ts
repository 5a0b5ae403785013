/**
 * @module `inbox retry --all-dead` and `outbox retry --all-dead`: every dead delivery (message) of
 * one provider (sender), dead within a window, back to pending with a fresh budget of failures,
 * page by page; `--dry-run` lists them instead. Each write is a compare-and-set on the row as
 * listed: one no longer dead as listed is left as it is, named with what it is now, and the
 * command exits with `LEFT`.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import {
  type LeftAsItIs,
  movedSince,
  type RetryDeadResult,
  retryDeadDeliveries,
} from '@webhook-idempotency/core/operations';
import { ExitCode } from '../exit-codes';
import { renderTable } from '../output';
import { INBOX_ROWS, type Row, type RowTable, tableOf, withHeaders } from '../row-tables';
import { type Context, withInbox } from '../session';

/** Options of `inbox retry --all-dead` (and `outbox retry --all-dead`, whose `--sender` is `provider` here). */
export interface InboxRetryAllCommandOptions {
  readonly provider?: string;
  /** Only deliveries that died within this many milliseconds. */
  readonly since?: number;
  /** List what would be retried; change nothing. */
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

export async function inboxRetryAll(
  context: Context,
  options: InboxRetryAllCommandOptions,
  rows: RowTable = INBOX_ROWS,
): Promise<number> {
  const now = Date.now();
  const { result, matched } = await withInbox(
    context,
    async (inbox) => {
      const result = await retryDeadDeliveries(inbox, {
        ...(options.provider !== undefined ? { provider: options.provider } : {}),
        ...(options.since !== undefined ? { sinceMs: options.since } : {}),
        dryRun: options.dryRun === true,
        now,
      });
      return { result, matched: await withHeaders(rows, inbox, result.matched) };
    },
    rows,
  );
  if (!options.json) return report(context, options, rows, { result, matched }, now);
  const { retried, left } = result;
  context.out.line(
    JSON.stringify(
      {
        table: rows.table(context),
        dryRun: options.dryRun === true,
        matched: matched.length,
        retried,
        [rows.many]: matched.map(rows.json),
        left: left.map(({ delivery, now }) => ({
          [rows.provider]: delivery.provider,
          [rows.id === 'key' ? 'key' : 'externalId']: delivery.externalId,
          listed: { status: delivery.status, ...leaseCount(delivery.leases) },
          now: now && rows.json(now),
        })),
      },
      null,
      2,
    ),
  );
  return left.length ? ExitCode.LEFT : ExitCode.OK;
}

/** What was (or, with `--dry-run`, would be) retried, and what was left as it is, in words. */
function report(
  context: Context,
  options: InboxRetryAllCommandOptions,
  rows: RowTable,
  { result: { retried, left }, matched }: { result: RetryDeadResult; matched: readonly Row[] },
  now: number,
): number {
  const { out } = context;
  const scope = options.provider === undefined ? '' : ` of ${options.provider}`;
  if (matched.length === 0) {
    out.line(`No dead ${rows.many}${scope} in ${rows.table(context)} match.`);
    return ExitCode.OK;
  }
  const listed = tableOf(rows.columns.retried, matched, now);
  for (const line of renderTable(out, listed.columns, listed.rows)) out.line(line);
  const count = (n: number) => `${n} dead ${n === 1 ? rows.one : rows.many}`;
  if (options.dryRun) {
    out.line(`Dry run: would retry ${count(matched.length)}${scope}; nothing was changed.`);
    return ExitCode.OK;
  }
  out.line(`Retried ${count(retried)}${scope}: dead → pending, due now, failure counts from 0.`);
  if (left.length === 0) return ExitCode.OK;
  out.line(
    `Left as ${left.length === 1 ? 'it is' : 'they are'}, no longer dead as listed: ${left.length}.`,
  );
  for (const line of leftLines(left)) out.line(line);
  return ExitCode.LEFT;
}

/** One line per row left as it is: its key, then what happened to it. */
function leftLines(left: readonly LeftAsItIs[]): string[] {
  return left.map(
    ({ delivery, now }) =>
      `  ${delivery.provider} ${delivery.externalId} ${movedSince(delivery, now)}`,
  );
}
