/** @module `inbox dead`: the dead-lettered deliveries with their last errors; `--fail-on-dead` for cron. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { ExitCode } from '../exit-codes';
import { type Context, withInbox } from '../session';
import { ago, deliveryJson } from './inbox-list';
import { COLUMN, printPage } from './layout';

/** Options of `inbox dead`. */
export interface InboxDeadCommandOptions {
  readonly provider?: string;
  readonly limit: number;
  readonly failOnDead?: boolean;
  readonly json?: boolean;
}

export async function inboxDead(
  context: Context,
  options: InboxDeadCommandOptions,
): Promise<number> {
  const { out, err, inboxTable } = context;
  const dead = await withInbox(context, (inbox) =>
    inbox.list({
      status: DeliveryStatus.DEAD,
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      limit: options.limit,
    }),
  );
  if (options.json) {
    out.line(JSON.stringify({ table: inboxTable, deliveries: dead.map(deliveryJson) }, null, 2));
  } else if (dead.length === 0) {
    out.line(`No dead deliveries in ${inboxTable}.`);
  } else {
    const now = Date.now();
    const rows = dead.map((d) => [
      d.provider,
      d.externalId,
      String(d.leases),
      String(d.failures),
      d.finishedAt ? ago(d.finishedAt, now) : '-',
      d.lastError ?? '',
    ]);
    const { provider, id, leases, failures, error } = COLUMN;
    const columns = [provider, id, leases, failures, { header: 'died' }, error('last error')];
    printPage(out, columns, rows, options.limit);
    out.line(`Put one back with: webhook-idempotency inbox retry <provider> <id>`);
  }
  if (options.failOnDead && dead.length > 0) {
    const count = `${dead.length}${dead.length === options.limit ? ' or more' : ''}`;
    err.line(
      `${count} dead ${dead.length === 1 ? 'delivery' : 'deliveries'} in ${inboxTable}` +
        (options.provider === undefined ? '' : ` (provider ${options.provider})`),
    );
    return ExitCode.DEAD;
  }
  return ExitCode.OK;
}
