/**
 * @module `inbox dead` and `outbox dead`: the dead-lettered deliveries (dead messages) with their
 * last errors; `--fail-on-dead` for cron.
 */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { ExitCode } from '../exit-codes';
import { INBOX_ROWS, type RowTable, tableOf } from '../row-tables';
import type { Context } from '../session';
import { listRows } from './inbox-list';
import { printPage } from './layout';

/** Options of `inbox dead` (and `outbox dead`, whose `--sender` is `provider` here). */
export interface InboxDeadCommandOptions {
  readonly provider?: string;
  readonly limit: number;
  readonly failOnDead?: boolean;
  readonly json?: boolean;
}

export async function inboxDead(
  context: Context,
  options: InboxDeadCommandOptions,
  rows: RowTable = INBOX_ROWS,
): Promise<number> {
  const { out, err } = context;
  const table = rows.table(context);
  const dead = await listRows(context, rows, {
    status: DeliveryStatus.DEAD,
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    limit: options.limit,
  });
  if (options.json) {
    out.line(JSON.stringify({ table, [rows.many]: dead.map(rows.json) }, null, 2));
  } else if (dead.length === 0) {
    out.line(`No dead ${rows.many} in ${table}.`);
  } else {
    const page = tableOf(rows.columns.dead, dead);
    printPage(out, page.columns, page.rows, options.limit);
    out.line(
      `Put one back with: webhook-idempotency ${rows.group} retry <${rows.provider}> <${rows.id}>`,
    );
  }
  if (options.failOnDead && dead.length > 0) {
    const count = `${dead.length}${dead.length === options.limit ? ' or more' : ''}`;
    err.line(
      `${count} dead ${dead.length === 1 ? rows.one : rows.many} in ${table}` +
        (options.provider === undefined ? '' : ` (${rows.provider} ${options.provider})`),
    );
    return ExitCode.DEAD;
  }
  return ExitCode.OK;
}
