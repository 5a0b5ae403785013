/** @module What the command writes: streams, colour (only on a TTY, never with NO_COLOR), tables for 80 columns. */

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

/** Writes lines to one stream, painting only when colour is on. */
export class Printer {
  readonly width: number;
  constructor(
    readonly stream: OutputStream,
    readonly color: boolean,
  ) {
    this.width = Math.max(40, Math.min(stream.columns ?? 80, 120));
  }

  /** `text` in `style` when colour is on; as is otherwise. */
  paint(style: Style, text: string): string {
    return this.color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
  }

  line(text = ''): void {
    this.stream.write(`${text}\n`);
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

const truncate = (text: string, width: number) =>
  text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;

/**
 * Rows under a header, columns two spaces apart, fitted into `printer.width` by truncating the
 * flexible columns (with `…`). Trailing spaces are trimmed.
 */
export function renderTable(
  printer: Printer,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): string[] {
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
