/**
 * @module The two tables of leased rows the commands read and repair, and their words: the inbox's
 * deliveries (`inbox …`: a provider and its event id) and the outbox's messages (`outbox …`: a
 * sender and the effect key, with the effect's name and the receipt it was recorded under). Both
 * tables have one shape and one store (`SqlInbox`); the commands are written once over a
 * {@link RowTable} and say what they do in its words.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import type { DeliverySummary, StoredDelivery } from '@webhook-idempotency/core/inbox';
import { outboxRowOf } from '@webhook-idempotency/core/outbox';
import type { SqlInbox } from '@webhook-idempotency/sql';
import { formatAge } from './durations';
import { COLUMN } from './commands/layout';
import type { Column } from './output';
import { INBOX_TABLE, type LeasedTable, OUTBOX_TABLE } from './session';

/** A row as the commands print it: its summary, with its headers when they were read. */
export type Row = (DeliverySummary | StoredDelivery) & {
  readonly headers?: Readonly<Record<string, string>>;
};

/** A column of a listing: its header and how a row fills it. */
interface Cell {
  readonly column: Column;
  readonly value: (row: Row, now: number) => string;
}

/** `12m ago`, from this machine's clock. */
export const ago = (date: Date, now = Date.now()) => `${formatAge(now - date.getTime())} ago`;

/** When a pending row is due (`now`, `in 12s`), how long a processing one's lease lasts (`lease 2m`). */
export function due(row: DeliverySummary | StoredDelivery, now = Date.now()): string {
  const left = row.availableAt.getTime() - now;
  if (row.status === 'pending') return left <= 0 ? 'now' : `in ${formatAge(left)}`;
  if (row.status === 'processing') return left <= 0 ? 'expired' : `lease ${formatAge(left)}`;
  return '-';
}

const message = (row: Row) => (row.headers ? outboxRowOf({ ...row, headers: row.headers }) : null);

/** The cells the listings are made of, by name. */
const CELLS = {
  provider: { column: COLUMN.provider, value: (r) => r.provider },
  id: { column: COLUMN.id, value: (r) => r.externalId },
  sender: { column: { ...COLUMN.provider, header: 'sender' }, value: (r) => r.provider },
  key: { column: { ...COLUMN.id, header: 'key' }, value: (r) => r.externalId },
  // A name and a receipt may be cut to fit: `outbox show` prints them whole.
  name: {
    column: { header: 'name', flexible: true, cut: true },
    value: (r) => message(r)?.name ?? '-',
  },
  receipt: {
    column: { header: 'receipt', flexible: true, cut: true },
    value: (r) => {
      const receipt = message(r)?.receipt;
      return receipt ? `${receipt.provider} ${receipt.externalId}` : '-';
    },
  },
  status: { column: COLUMN.status, value: (r) => r.status },
  leases: { column: COLUMN.leases, value: (r) => String(r.leases) },
  failures: { column: COLUMN.failures, value: (r) => String(r.failures) },
  due: { column: { header: 'due' }, value: (r, now) => due(r, now) },
  died: {
    column: { header: 'died' },
    value: (r, now) => (r.finishedAt ? ago(r.finishedAt, now) : '-'),
  },
  error: { column: COLUMN.error('last error'), value: (r) => r.lastError ?? '' },
} satisfies Record<string, Cell>;

/** A listing's columns, by the names of {@link CELLS}. */
export type CellName = keyof typeof CELLS;

/** The columns and the rows' cells of a listing made of `names`. */
export function tableOf(names: readonly CellName[], rows: readonly Row[], now = Date.now()) {
  const cells = names.map((name) => CELLS[name]);
  return {
    columns: cells.map((cell) => cell.column),
    rows: rows.map((row) => cells.map((cell) => cell.value(row, now))),
  };
}

/** What is common to the JSON of a delivery and of a message: state and times. */
const stateJson = (row: Row) => ({
  status: row.status,
  failures: row.failures,
  availableAt: row.availableAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
  lastError: row.lastError,
});

const bytesOf = (row: Row) => ('body' in row ? row.body.length : row.bodyBytes);

/** A table of leased rows, and the words the commands use for it. */
export interface RowTable extends LeasedTable {
  /** The command group (`inbox`, `outbox`). */
  readonly group: 'inbox' | 'outbox';
  /** One row, many rows: `delivery`/`deliveries`, `message`/`messages` (also the JSON's keys). */
  readonly one: 'delivery' | 'message';
  readonly many: 'deliveries' | 'messages';
  /** The two parts of a row's key, as the arguments and texts name them. */
  readonly provider: 'provider' | 'sender';
  readonly id: 'id' | 'key';
  /** What runs the rows: `worker`, `dispatcher`. */
  readonly runner: string;
  /** The row's payload: `body`, `payload` (also its flag on `show`). */
  readonly body: 'body' | 'payload';
  /** True when a listing reads each row's headers too (the outbox's name and receipt). */
  readonly listsHeaders: boolean;
  /** True when `show` prints the stored headers (the inbox's: the provider's request headers). */
  readonly showsHeaders: boolean;
  /** `show`'s fields before the state: the outbox's name and receipt. */
  readonly fields: (row: StoredDelivery) => ReadonlyArray<readonly [string, string]>;
  /** When a row was stored, as `show` names it: `received`, `recorded`. */
  readonly stored: 'received' | 'recorded';
  /** A row for `--json`. */
  readonly json: (row: Row) => Record<string, unknown>;
  /** The columns of `list`, `dead` and `retry --all-dead`. */
  readonly columns: {
    readonly list: readonly CellName[];
    readonly dead: readonly CellName[];
    readonly retried: readonly CellName[];
  };
  /** Why a done row is not retried, and what to do instead (after `<key> is done: `). */
  readonly doneRefusal: (name: string) => string;
  /** The help's words: the commands' descriptions, the key's two arguments. */
  readonly help: {
    readonly list: string;
    readonly show: string;
    readonly dead: string;
    readonly provider: string;
    readonly id: string;
  };
}

/** The inbox deliveries table (`inbox …`). */
export const INBOX_ROWS: RowTable = {
  group: 'inbox',
  one: 'delivery',
  many: 'deliveries',
  provider: 'provider',
  id: 'id',
  runner: 'worker',
  body: 'body',
  ...INBOX_TABLE,
  listsHeaders: false,
  showsHeaders: true,
  fields: () => [],
  stored: 'received',
  /** Dates as ISO strings, the body's size but never its bytes. */
  json: (row) => ({
    id: row.id,
    provider: row.provider,
    externalId: row.externalId,
    orderingKey: row.orderingKey,
    status: row.status,
    ...leaseCount(row.leases),
    failures: row.failures,
    receivedAt: row.receivedAt.toISOString(),
    availableAt: row.availableAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    lastError: row.lastError,
    bodyBytes: bytesOf(row),
  }),
  columns: {
    list: ['provider', 'id', 'status', 'leases', 'failures', 'due', 'error'],
    dead: ['provider', 'id', 'leases', 'failures', 'died', 'error'],
    retried: ['provider', 'id', 'died', 'error'],
  },
  doneRefusal: (name) =>
    `its handler ran and committed; nothing to retry.\nTo run the handler again, deliberately: webhook-idempotency redeliver ${name} --force`,
  help: {
    list: 'list stored deliveries, oldest first (receipt order)',
    show: 'one delivery: status, leases, failures, times, last error, headers, body size',
    dead: 'the dead-lettered deliveries, oldest first, with their last errors',
    provider: 'the provider (e.g. stripe)',
    id: "the provider's event or delivery id",
  },
};

/** The outbox messages table (`outbox …`). */
export const OUTBOX_ROWS: RowTable = {
  group: 'outbox',
  one: 'message',
  many: 'messages',
  provider: 'sender',
  id: 'key',
  runner: 'dispatcher',
  body: 'payload',
  ...OUTBOX_TABLE,
  listsHeaders: true,
  // Its headers are its name and receipt: shown as fields of their own.
  showsHeaders: false,
  fields: (row) => {
    const read = outboxRowOf(row);
    const receipt = read.receipt ? `${read.receipt.provider} ${read.receipt.externalId}` : '-';
    return [
      ['name', read.name ?? '-'],
      ['receipt', receipt],
    ];
  },
  stored: 'recorded',
  /** The message's sender, key, name and receipt; its state; the payload's size, never its bytes. */
  json: (row) => {
    const read = message(row);
    return {
      id: row.id,
      sender: row.provider,
      key: row.externalId,
      name: read ? read.name : null,
      receipt: read ? read.receipt : null,
      ...stateJson(row),
      leases: row.leases,
      recordedAt: row.receivedAt.toISOString(),
      payloadBytes: bytesOf(row),
    };
  },
  columns: {
    list: ['sender', 'key', 'name', 'receipt', 'status', 'failures', 'due', 'error'],
    dead: ['sender', 'key', 'name', 'receipt', 'failures', 'died', 'error'],
    retried: ['sender', 'key', 'name', 'receipt', 'died', 'error'],
  },
  doneRefusal: () => 'it was sent; nothing to retry.',
  help: {
    list: 'list recorded messages, oldest first (the order they were recorded)',
    show: 'one message: effect name, receipt, status, leases, failures, times, last error, payload size',
    dead: 'the dead messages (their sends failed for good), oldest first, with their last errors',
    provider: "the sender's name (e.g. http, email)",
    id: "the message's effect key",
  },
};

/**
 * `rows` with their headers, when `table` lists them (the outbox: each row's name and receipt),
 * read one row at a time; a row gone since the listing keeps its summary alone.
 */
export async function withHeaders(
  table: RowTable,
  store: Pick<SqlInbox, 'find'>,
  rows: readonly DeliverySummary[],
): Promise<Row[]> {
  if (!table.listsHeaders) return [...rows];
  const read: Row[] = [];
  for (const row of rows) {
    const stored = await store.find(row.provider, row.externalId);
    read.push(stored ? { ...row, headers: stored.headers } : row);
  }
  return read;
}
