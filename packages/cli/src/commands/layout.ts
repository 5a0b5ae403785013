/**
 * @module How the commands lay out what they read: a listing's page as a table (with the columns
 * receipts and deliveries share), and one stored record as a title and a line per field.
 */
import { type Column, escapeControls, type Printer, renderTable, statusStyle } from '../output';
import type { EventKey } from '../session';

/** The columns listings of receipts and of deliveries share, by name. */
export const COLUMN = {
  provider: { header: 'provider', flexible: true },
  id: { header: 'id', flexible: true },
  status: { header: 'status', style: statusStyle },
  /** A receipt's handler starts. */
  attempts: { header: 'attempts', align: 'right' },
  /** A delivery's leases. */
  leases: { header: 'leases', align: 'right' },
  failures: { header: 'failures', align: 'right' },
  /** A stored error, cut to fit (`show` prints it whole). */
  error: (header: string): Column => ({ header, flexible: true, cut: true }),
} as const satisfies Record<string, Column | ((header: string) => Column)>;

/** One page of a listing as a table, and a note when the page is full: there may be more. */
export function printPage(
  out: Printer,
  columns: readonly Column[],
  rows: readonly string[][],
  limit: number,
): void {
  for (const line of renderTable(out, columns, rows)) out.line(line);
  if (rows.length === limit) out.line(out.paint('dim', `(first ${limit}; raise --limit for more)`));
}

/** A listing's page: its items, each as `--json` shows it, and its table (made only to print it). */
export interface Listing<T> {
  /** What it lists, as `--json` names it and `No … match.` says it. */
  readonly name: 'receipts' | 'deliveries' | 'messages';
  readonly items: readonly T[];
  readonly json: (item: T) => unknown;
  readonly table: (items: readonly T[]) => { columns: readonly Column[]; rows: string[][] };
  /** `--limit`: a full page says there may be more. */
  readonly limit: number;
}

/** A listing as `--json` (`{ [name]: [...] }`), as `No … match.` when empty, or as a table's page. */
export function printListing<T>(out: Printer, json: boolean | undefined, listing: Listing<T>) {
  const { name, items, limit } = listing;
  if (json) return out.line(JSON.stringify({ [name]: items.map(listing.json) }, null, 2));
  if (items.length === 0) return out.line(`No ${name} match.`);
  const { columns, rows } = listing.table(items);
  printPage(out, columns, rows, limit);
}

/**
 * Prints the title of one stored record (its key, in bold) and returns the writer of its fields,
 * one line per field: a stored value cannot add lines that look like other fields.
 */
export function printRecord(out: Printer, key: EventKey): (name: string, value: string) => void {
  out.line(
    out.paint('bold', escapeControls(`${key.provider} ${key.externalId}`, { newlines: false })),
  );
  return (name, value) =>
    out.line(`${out.paint('dim', name.padEnd(12))}${escapeControls(value, { newlines: false })}`);
}
