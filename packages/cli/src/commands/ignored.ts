/**
 * @module `status`'s ignored events: what route sets acknowledged without storing or running
 * anything (no route takes the event), per provider and type, so that "why did my handler never
 * run for this event?" has its answer next to the receipts' counts.
 */
import { DEFAULT_TABLE, type IgnoredReport } from '@webhook-idempotency/sql';
import { renderTable } from '../output';
import type { Context } from '../session';

/** Types shown in the table; `--json` has every one. */
const SHOWN_TYPES = 20;

/** The counts could not be read: why, in a line (the receipts' report is shown all the same). */
export interface IgnoredUnreadable {
  readonly error: string;
}

/** An error's message, on one line. */
export const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');

/** The section's lines, after the receipts' counts. */
export function printIgnored(context: Context, report: IgnoredReport | IgnoredUnreadable): void {
  const { out, table } = context;
  out.line();
  if ('error' in report) {
    out.line(`Ignored events (no route): could not be read: ${report.error}`);
    return;
  }
  if (!report.counted) {
    out.line(`Ignored events (no route): not counted, table ${report.table} is missing.`);
    out.line(
      `Create it with: webhook-idempotency migrate${table === DEFAULT_TABLE ? '' : ` --table ${table}`}`,
    );
    return;
  }
  const since = `Ignored (no route: nothing stored or run), since ${report.since.toISOString()}`;
  if (report.total === 0) {
    out.line(`${since}: none`);
    return;
  }
  out.line(`${since}: ${report.total}`);
  const rows = report.events
    .slice(0, SHOWN_TYPES)
    .map((row) => [row.provider, row.type, String(row.count), row.lastHour.toISOString()]);
  const columns = [
    { header: 'provider' },
    { header: 'event type', flexible: true, cut: true },
    { header: 'ignored', align: 'right' as const },
    { header: 'last hour' },
  ];
  for (const line of renderTable(out, columns, rows)) out.line(line);
  const more = report.events.length - SHOWN_TYPES;
  if (more > 0)
    out.line(`… and ${more} more type${more === 1 ? '' : 's'} (--json lists every one)`);
}
