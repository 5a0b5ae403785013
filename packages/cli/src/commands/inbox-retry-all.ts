/**
 * @module `inbox retry --all-dead`: every dead delivery (of one provider, dead within a window)
 * back to pending with a fresh budget of failures, page by page; `--dry-run` lists them instead.
 */
import { retryDeadDeliveries } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { renderTable } from '../output';
import { type Context, withInbox } from '../session';
import { ago, deliveryJson } from './inbox-list';

/** Options of `inbox retry --all-dead`. */
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
): Promise<number> {
  const { out, inboxTable } = context;
  const now = Date.now();
  const { matched, retried } = await withInbox(context, (inbox) =>
    retryDeadDeliveries(inbox, {
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.since !== undefined ? { sinceMs: options.since } : {}),
      dryRun: options.dryRun === true,
      now,
    }),
  );
  if (options.json) {
    out.line(
      JSON.stringify(
        {
          table: inboxTable,
          dryRun: options.dryRun === true,
          matched: matched.length,
          retried,
          deliveries: matched.map(deliveryJson),
        },
        null,
        2,
      ),
    );
    return ExitCode.OK;
  }
  const scope = options.provider === undefined ? '' : ` of ${options.provider}`;
  if (matched.length === 0) {
    out.line(`No dead deliveries${scope} in ${inboxTable} match.`);
    return ExitCode.OK;
  }
  const rows = matched.map((d) => [
    d.provider,
    d.externalId,
    d.finishedAt ? ago(d.finishedAt, now) : '-',
    d.lastError ?? '',
  ]);
  const columns = [
    { header: 'provider', flexible: true },
    { header: 'id', flexible: true },
    { header: 'died' },
    { header: 'last error', flexible: true },
  ];
  for (const line of renderTable(out, columns, rows)) out.line(line);
  const count = (n: number) => `${n} dead ${n === 1 ? 'delivery' : 'deliveries'}`;
  out.line(
    options.dryRun
      ? `Dry run: would retry ${count(matched.length)}${scope}; nothing was changed.`
      : `Retried ${count(retried)}${scope}: dead → pending, due now, failure counts from 0.` +
          (retried < matched.length
            ? ` ${matched.length - retried} changed meanwhile and were left as they are.`
            : ''),
  );
  return ExitCode.OK;
}
