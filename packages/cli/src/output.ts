/**
 * @module What the command writes: streams, colour (only on a TTY, never with NO_COLOR), tables for
 * 80 columns, and stored data made harmless for a terminal (control characters escaped).
 */
import { randomBytes } from 'node:crypto';

/** Where output goes; `process.stdout` and `process.stderr` fit. */
export interface OutputStream {
  write(text: string): unknown;
  /** True on a terminal: colour and a progress bar. */
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
  readonly width: number;
  /** Marks the colour codes {@link Printer.paint} adds, unguessable to data written before this run. */
  private readonly mark = `\ue000${randomBytes(8).toString('hex')}`;
  private readonly marks: RegExp;
  constructor(
    readonly stream: OutputStream,
    readonly color: boolean,
    readonly escaping = true,
  ) {
    this.width = Math.max(40, Math.min(stream.columns ?? 80, 120));
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
  /** Shrinks first when the table is wider than the terminal (long ids, errors). */
  readonly flexible?: boolean;
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

/**
 * Rows under a header, columns two spaces apart, fitted into `printer.width` by truncating the
 * flexible columns (with `…`). Trailing spaces are trimmed.
 */
export function renderTable(
  printer: Printer,
  columns: readonly Column[],
  cells: readonly (readonly string[])[],
): string[] {
  // Escaped before they are measured: a control character takes the four columns it is shown in.
  const rows = cells.map((row) => row.map((cell) => escapeControls(cell, { newlines: false })));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  // Too wide: cap every flexible column at the largest width that fits (never below its header or
  // 8 characters), so that the long ones share the room instead of one of them losing it all.
  const natural = [...widths];
  const capped = (cap: number) =>
    natural.map((width, i) =>
      columns[i]!.flexible ? Math.min(width, Math.max(cap, columns[i]!.header.length, 8)) : width,
    );
  const total = (w: readonly number[]) =>
    w.reduce((sum, x) => sum + x, 0) + 2 * (columns.length - 1);
  if (total(natural) > printer.width) {
    let cap = Math.max(...natural);
    while (cap > 1 && total(capped(cap)) > printer.width) cap--;
    widths.splice(0, widths.length, ...capped(cap));
  }
  const render = (cells: readonly string[], header: boolean) =>
    columns
      .map((column, i) => {
        const cell = truncate(cells[i] ?? '', widths[i]!);
        const padded =
          column.align === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
        const style = header ? 'dim' : column.style?.(cells[i] ?? '');
        return style ? printer.paint(style, padded) : padded;
      })
      .join('  ')
      .replace(/\s+$/, '');
  return [
    render(
      columns.map((c) => c.header),
      true,
    ),
    ...rows.map((row) => render(row, false)),
  ];
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
