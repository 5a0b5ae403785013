/**
 * @module What the command writes: streams, colour (only on a TTY, never with NO_COLOR), tables
 * fitted to a terminal (whole values when piped), and stored data made harmless for a terminal
 * (control characters escaped).
 */
import { randomBytes } from 'node:crypto';

/** Where output goes; `process.stdout` and `process.stderr` fit. */
export interface OutputStream {
  write(text: string): unknown;
  /** True on a terminal: colour, a progress bar, tables fitted to its width. */
  readonly isTTY?: boolean;
  /** Terminal width; 80 when unknown. */
  readonly columns?: number;
}

/** The command's surroundings: its streams and environment. Defaults to the process's own. */
export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Read for `DATABASE_URL` and `NO_COLOR`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Where a confirmation is read from (`redeliver` by query asks before it writes). Absent, or
   * not a terminal: nothing is asked, and a command that would ask needs `--yes` instead.
   */
  readonly stdin?: InputStream;
}

/** Where answers come from; `process.stdin` fits. */
export interface InputStream extends AsyncIterable<unknown> {
  /** True on a terminal: only then is a question asked. */
  readonly isTTY?: boolean;
  setEncoding?(encoding: 'utf8'): unknown;
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;
/** A style of {@link Printer.paint}. */
export type Style = keyof typeof CODES;

// C0 controls but the line feed, DEL, and the C1 controls (U+0080–U+009F, which some terminals
// obey like ESC sequences): what stored data must never send to a terminal raw.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROLS_AND_NEWLINES = /[\u0000-\u001f\u007f-\u009f]/g;
const hex = (char: string) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;

/**
 * `text` with every C0 control, DEL and C1 control written as `\xNN` (four visible characters), so
 * a stored header or error can neither move the cursor, clear the screen, set the window title nor
 * paint itself. Line feeds stay unless `newlines` is `false` (table cells, one-line fields).
 * @example
 * escapeControls('ok\u001b[2J'); // 'ok\\x1b[2J'
 */
export function escapeControls(text: string, { newlines = true } = {}): string {
  return text.replace(newlines ? CONTROLS : CONTROLS_AND_NEWLINES, hex);
}

/**
 * Writes lines to one stream, painting only when colour is on. Unless `escaping` is off (`--json`,
 * whose text JSON.stringify already escapes), every line has its control characters escaped
 * ({@link escapeControls}) whatever it holds: only the Printer's own colours reach the terminal.
 */
export class Printer {
  /**
   * What a table is fitted into: the terminal's width (40 to 120 columns, 80 when unknown), or no
   * limit when the stream is not a terminal (piped, redirected): every value is printed whole.
   */
  readonly width: number;
  /** Marks the colour codes {@link Printer.paint} adds, unguessable to data written before this run. */
  private readonly mark = `\ue000${randomBytes(8).toString('hex')}`;
  private readonly marks: RegExp;
  constructor(
    readonly stream: OutputStream,
    readonly color: boolean,
    readonly escaping = true,
  ) {
    this.width =
      stream.isTTY === true
        ? Math.max(40, Math.min(stream.columns ?? 80, 120))
        : Number.POSITIVE_INFINITY;
    this.marks = new RegExp(`${this.mark}(\\d+)\ue001`, 'g');
  }

  /** `text` in `style` when colour is on; as is otherwise. */
  paint(style: Style, text: string): string {
    return this.color ? `${this.mark}${CODES[style]}\ue001${text}${this.mark}0\ue001` : text;
  }

  line(text = ''): void {
    const safe = this.escaping ? escapeControls(text) : text;
    this.stream.write(`${safe.replace(this.marks, '\u001b[$1m')}\n`);
  }
}

/** Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (no-color.org). */
export function colorFor(stream: OutputStream, env: CliIo['env']): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/** A column of {@link renderTable}. */
export interface Column {
  readonly header: string;
  readonly align?: 'left' | 'right';
  /** Shares the room when the table is wider than the terminal (ids, providers, errors). */
  readonly flexible?: boolean;
  /**
   * May be cut with `…` to fit (an error: `show` prints it whole). A flexible value that may not
   * be cut (an id: it is copied into the next command) is printed whole on a line of its own
   * under its row when it does not fit, and its cell says so.
   */
  readonly cut?: boolean;
  /** Paints a cell (after padding, so widths stay right). */
  readonly style?: (cell: string) => Style | undefined;
}

/** Cuts an escaped cell to `width`, never inside a `\xNN` unit (it is cut whole or kept whole). */
function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  let cut = '';
  for (const unit of text.match(/\\x[0-9a-f]{2}|[\s\S]/g) ?? []) {
    if (cut.length + unit.length > width - 1) break;
    cut += unit;
  }
  return `${cut}…`;
}

/** What a cell shows when its value is printed whole under its row. */
export const BELOW = '(below)';

/** The narrowest a flexible column gets (or its header, when wider). */
const MIN_FLEXIBLE = 8;

/**
 * The largest common cap of the columns `which` (each at most its `natural` width, at least its
 * `least`) whose widths sum to `room` or less: long values share the room instead of one of them
 * losing it all.
 */
function shareRoom(
  natural: readonly number[],
  least: readonly number[],
  which: readonly number[],
  room: number,
): number[] {
  const at = (cap: number) => which.map((i) => Math.min(natural[i]!, Math.max(cap, least[i]!)));
  let cap = Math.max(0, ...which.map((i) => natural[i]!));
  while (cap > 1 && at(cap).reduce((sum, w) => sum + w, 0) > room) cap--;
  return at(cap);
}

/**
 * The column widths within `width`: each column's widest cell when that fits. Otherwise the
 * columns that may be cut (errors) give up room first, down to {@link MIN_FLEXIBLE}; if the
 * others (ids) still do not fit, they share what is left, each then only as wide as its widest
 * value that fits (the longer ones go below their rows), and the room that frees goes back to the
 * columns that may be cut.
 */
function fit(width: number, columns: readonly Column[], rows: readonly string[][]): number[] {
  const natural = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const widths = [...natural];
  const sum = (which: readonly number[]) => which.reduce((total, i) => total + widths[i]!, 0);
  const all = columns.map((_, i) => i);
  if (sum(all) + 2 * (columns.length - 1) <= width) return widths;
  const least = columns.map((c) => Math.max(c.header.length, MIN_FLEXIBLE));
  const cuts = all.filter((i) => columns[i]!.flexible && columns[i]!.cut);
  const keeps = all.filter((i) => columns[i]!.flexible && !columns[i]!.cut);
  const fixed = all.filter((i) => !columns[i]!.flexible);
  const room = width - sum(fixed) - 2 * (columns.length - 1);
  const set = (which: readonly number[], to: readonly number[]) =>
    which.forEach((i, k) => {
      widths[i] = to[k]!;
    });
  set(cuts, shareRoom(natural, least, cuts, room - sum(keeps)));
  if (sum(keeps) + sum(cuts) <= room) return widths;
  set(keeps, shareRoom(natural, least, keeps, room - sum(cuts)));
  for (const i of keeps)
    widths[i] = Math.max(
      columns[i]!.header.length,
      BELOW.length,
      ...rows.map((row) => (row[i] ?? '').length).filter((length) => length <= widths[i]!),
    );
  set(cuts, shareRoom(natural, least, cuts, room - sum(keeps)));
  return widths;
}

/**
 * Rows under a header, columns two spaces apart, trailing spaces trimmed. On a terminal the table
 * is fitted into `printer.width`: a flexible column marked `cut` is truncated (with `…`); any
 * other value too long for its column (an id) is never cut: its cell shows {@link BELOW} and the
 * value follows the row whole, on a line of its own (`  id: …`). Piped, every value is whole.
 */
export function renderTable(
  printer: Printer,
  columns: readonly Column[],
  cells: readonly (readonly string[])[],
): string[] {
  // Escaped before they are measured: a control character takes the four columns it is shown in.
  const rows = cells.map((row) => row.map((cell) => escapeControls(cell, { newlines: false })));
  const widths = fit(printer.width, columns, rows);
  const render = (row: readonly string[], header: boolean) =>
    columns
      .map((column, i) => {
        const value = row[i] ?? '';
        const below = !column.cut && value.length > widths[i]!;
        const cell = below ? BELOW : truncate(value, widths[i]!);
        const padded =
          column.align === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
        const style = header || below ? 'dim' : column.style?.(value);
        return style ? printer.paint(style, padded) : padded;
      })
      .join('  ')
      .replace(/\s+$/, '');
  const lines = [
    render(
      columns.map((c) => c.header),
      true,
    ),
  ];
  for (const row of rows) {
    lines.push(render(row, false));
    columns.forEach((column, i) => {
      const value = row[i] ?? '';
      if (!column.cut && value.length > widths[i]!) lines.push(`  ${column.header}: ${value}`);
    });
  }
  return lines;
}

/** The colour of a receipt's or a delivery's status. */
export const statusStyle = (status: string): Style | undefined =>
  status === 'failed' || status === 'dead'
    ? 'red'
    : status === 'processing' || status === 'pending'
      ? 'yellow'
      : status === 'completed' || status === 'done'
        ? 'green'
        : undefined;
