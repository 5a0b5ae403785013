/**
 * @module `inbox retry --all-dead`: every dead delivery (of one provider, dead within a window)
 * back to pending with a fresh budget of failures, page by page; `--dry-run` lists them instead.
 * Each write is a compare-and-set on the delivery as listed: one no longer dead as listed is left
 * as it is, named with what it is now, and the command exits with `LEFT`.
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
  const now = Date.now();
  const result = await withInbox(context, (inbox) =>
    retryDeadDeliveries(inbox, {
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.since !== undefined ? { sinceMs: options.since } : {}),
      dryRun: options.dryRun === true,
      now,
    }),
  );
  if (!options.json) return report(context, options, result, now);
  const { matched, retried, left } = result;
  context.out.line(
    JSON.stringify(
      {
        table: context.inboxTable,
        dryRun: options.dryRun === true,
        matched: matched.length,
        retried,
        deliveries: matched.map(deliveryJson),
        left: left.map(({ delivery, now }) => ({
          provider: delivery.provider,
          externalId: delivery.externalId,
          listed: { status: delivery.status, ...leaseCount(delivery.leases) },
          now: now && deliveryJson(now),
        })),
      },
      null,
      2,
    ),
  );
  return left.length ? ExitCode.LEFT : ExitCode.OK;
}

const COLUMNS = [
  { header: 'provider', flexible: true },
  { header: 'id', flexible: true },
  { header: 'died' },
  { header: 'last error', flexible: true },
];

/** What was (or, with `--dry-run`, would be) retried, and what was left as it is, in words. */
function report(
  { out, inboxTable }: Context,
  options: InboxRetryAllCommandOptions,
  { matched, retried, left }: RetryDeadResult,
  now: number,
): number {
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
  for (const line of renderTable(out, COLUMNS, rows)) out.line(line);
  const count = (n: number) => `${n} dead ${n === 1 ? 'delivery' : 'deliveries'}`;
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

/** One line per delivery left as it is: its key, then what happened to it. */
function leftLines(left: readonly LeftAsItIs[]): string[] {
  return left.map(
    ({ delivery, now }) =>
      `  ${delivery.provider} ${delivery.externalId} ${movedSince(delivery, now)}`,
  );
}
