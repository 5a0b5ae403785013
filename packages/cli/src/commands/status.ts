/**
 * @module `status`: counts per provider × status, stuck claims, handler times, failure share, and
 * the events route sets ignored.
 */
import type { ProviderCounts, ReceiptsStatus } from '@webhook-idempotency/sql';
import { formatAge, formatDuration, formatSpan } from '../durations';
import { ExitCode } from '../exit-codes';
import { type Printer, renderTable } from '../output';
import { type Context, withAdmin } from '../session';
import { type IgnoredUnreadable, messageOf, printIgnored } from './ignored';

/** Options of `status`. */
export interface StatusCommandOptions {
  readonly since: number;
  readonly failOnStuck?: boolean;
  readonly json?: boolean;
}

/** The report and the ignored events' counts, read side by side. */
function readStatus(context: Context, sinceMs: number) {
  const { staleAfterMs } = context;
  return withAdmin(context, (admin) =>
    Promise.all([
      admin.status({ staleAfterMs, sinceMs }),
      // Best effort: counts that cannot be read (a role without access to the counts table)
      // are said, never the reason the receipts' report fails.
      admin
        .ignored({ sinceMs })
        .catch((error: unknown): IgnoredUnreadable => ({ error: messageOf(error) })),
    ]),
  );
}

export async function status(context: Context, options: StatusCommandOptions): Promise<number> {
  const { out, err, staleAfterMs, table } = context;
  const [report, ignored] = await readStatus(context, options.since);
  const { totals } = report;
  if (options.json) {
    out.line(JSON.stringify({ table, ...report, ignored }, null, 2));
  } else if (report.providers.length === 0) {
    out.line(`No receipts in ${table}.`);
    printIgnored(context, ignored);
  } else {
    printCounts(out, report);
    out.line();
    printWindow(context, report);
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

/** A count that is not zero is one to look at. */
const redUnlessZero = (cell: string) => (cell !== '0' ? ('red' as const) : undefined);

const COUNT_COLUMNS = [
  { header: 'provider', flexible: true },
  { header: 'processing', align: 'right' as const },
  { header: 'stuck', align: 'right' as const, style: redUnlessZero },
  { header: 'completed', align: 'right' as const },
  { header: 'failed', align: 'right' as const, style: redUnlessZero },
  { header: 'oldest processing' },
];

/** The counts per provider and status, with a row of totals when there are several providers. */
function printCounts(out: Printer, report: ReceiptsStatus): void {
  const row = (c: ProviderCounts) => [
    c.provider === '*' ? 'all' : c.provider,
    String(c.processing),
    String(c.stuck),
    String(c.completed),
    String(c.failed),
    c.oldestProcessingAgeMs === null ? '-' : formatAge(c.oldestProcessingAgeMs),
  ];
  const rows = report.providers.map(row);
  if (report.providers.length > 1) rows.push(row(report.totals));
  for (const line of renderTable(out, COUNT_COLUMNS, rows)) out.line(line);
}

/** The window's finished receipts and failure share, handler times, and the stuck claims. */
function printWindow({ out, staleAfterMs }: Context, { window, totals }: ReceiptsStatus): void {
  const finished = window.completed + window.failed;
  const share = window.failureShare === null ? '' : ` (${(window.failureShare * 100).toFixed(1)}%)`;
  out.line(
    `Finished in the last ${formatSpan(window.sinceMs)}: ${finished}, failed ${window.failed}${share}`,
  );
  const times = window.handlerTime;
  if (times)
    out.line(
      `Handler time (completed): p50 ${formatDuration(times.p50Ms)}, p95 ${formatDuration(times.p95Ms)}, ` +
        `p99 ${formatDuration(times.p99Ms)}, max ${formatDuration(times.maxMs)} (${times.sampled} receipts)`,
    );
  const stuck = `Stuck (processing for more than ${formatAge(staleAfterMs)})`;
  out.line(
    totals.stuck === 0
      ? `${stuck}: none`
      : out.paint('red', `${stuck}: ${totals.stuck}; see webhook-idempotency list --stuck`),
  );
}
