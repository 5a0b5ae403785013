/**
 * @module `status`: counts per provider × status, stuck claims, handler times, failure share, and
 * the events route sets ignored.
 */
import type { ProviderCounts } from '@webhook-idempotency/sql';
import { formatAge, formatDuration, formatSpan } from '../durations';
import { ExitCode } from '../exit-codes';
import { renderTable } from '../output';
import { type Context, withAdmin } from '../session';
import { type IgnoredUnreadable, messageOf, printIgnored } from './ignored';

/** Options of `status`. */
export interface StatusCommandOptions {
  readonly since: number;
  readonly failOnStuck?: boolean;
  readonly json?: boolean;
}

export async function status(context: Context, options: StatusCommandOptions): Promise<number> {
  const { out, err, staleAfterMs, table } = context;
  const [report, ignored] = await withAdmin(context, (admin) =>
    Promise.all([
      admin.status({ staleAfterMs, sinceMs: options.since }),
      // Best effort: counts that cannot be read (a role without access to the counts table)
      // are said, never the reason the receipts' report fails.
      admin
        .ignored({ sinceMs: options.since })
        .catch((error: unknown): IgnoredUnreadable => ({ error: messageOf(error) })),
    ]),
  );
  const { totals, window } = report;
  if (options.json) {
    out.line(JSON.stringify({ table, ...report, ignored }, null, 2));
  } else if (report.providers.length === 0) {
    out.line(`No receipts in ${table}.`);
    printIgnored(context, ignored);
  } else {
    const row = (c: ProviderCounts) => [
      c.provider === '*' ? 'all' : c.provider,
      String(c.processing),
      String(c.stuck),
      String(c.completed),
      String(c.failed),
      c.oldestProcessingAgeMs === null ? '-' : formatAge(c.oldestProcessingAgeMs),
    ];
    const rows = report.providers.map(row);
    if (report.providers.length > 1) rows.push(row(totals));
    const columns = [
      { header: 'provider', flexible: true },
      { header: 'processing', align: 'right' as const },
      {
        header: 'stuck',
        align: 'right' as const,
        style: (cell: string) => (cell !== '0' ? ('red' as const) : undefined),
      },
      { header: 'completed', align: 'right' as const },
      {
        header: 'failed',
        align: 'right' as const,
        style: (cell: string) => (cell !== '0' ? ('red' as const) : undefined),
      },
      { header: 'oldest processing' },
    ];
    for (const line of renderTable(out, columns, rows)) out.line(line);
    out.line();
    const finished = window.completed + window.failed;
    const share =
      window.failureShare === null ? '' : ` (${(window.failureShare * 100).toFixed(1)}%)`;
    out.line(
      `Finished in the last ${formatSpan(window.sinceMs)}: ${finished}, failed ${window.failed}${share}`,
    );
    const times = window.handlerTime;
    if (times)
      out.line(
        `Handler time (completed): p50 ${formatDuration(times.p50Ms)}, p95 ${formatDuration(times.p95Ms)}, ` +
          `p99 ${formatDuration(times.p99Ms)}, max ${formatDuration(times.maxMs)} (${times.sampled} receipts)`,
      );
    out.line(
      totals.stuck === 0
        ? `Stuck (processing for more than ${formatAge(staleAfterMs)}): none`
        : out.paint(
            'red',
            `Stuck (processing for more than ${formatAge(staleAfterMs)}): ${totals.stuck}; see webhook-idempotency list --stuck`,
          ),
    );
    printIgnored(context, ignored);
  }
  if (options.failOnStuck && totals.stuck > 0) {
    err.line(
      `${totals.stuck} receipt${totals.stuck === 1 ? '' : 's'} stuck in processing for more than ${formatAge(staleAfterMs)} in ${table}`,
    );
    return ExitCode.STUCK;
  }
  return ExitCode.OK;
}
