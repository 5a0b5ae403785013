/**
 * @module `inbox show` and `outbox show`: one stored delivery (message), its state and headers (the
 * message's name and receipt); its body (payload) bytes only with `--body` (`--payload`).
 */
import type { StoredDelivery } from '@webhook-idempotency/core/inbox';
import type { SqlInbox } from '@webhook-idempotency/sql';
import { CliError, ExitCode } from '../exit-codes';
import { escapeControls, type Printer } from '../output';
import { ago, due, INBOX_ROWS, type RowTable } from '../row-tables';
import { type Context, type EventKey, withInbox } from '../session';
import { printRecord } from './layout';

/** Options of `inbox show` (and `outbox show`, whose `--payload` is `body` here). */
export interface InboxShowCommandOptions {
  /** Print the body bytes too (they may hold personal data: off by default). */
  readonly body?: boolean;
  readonly json?: boolean;
}

/** The body as text when it is UTF-8, else base64. */
function bodyOf(body: Buffer): { body: string; encoding: 'utf8' | 'base64' } {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body)
    ? { body: text, encoding: 'utf8' }
    : { body: body.toString('base64'), encoding: 'base64' };
}

/** No delivery (message) under this key: exit `NOT_FOUND`. */
export function noDelivery(context: Context, key: EventKey, rows: RowTable = INBOX_ROWS) {
  return new CliError(
    ExitCode.NOT_FOUND,
    `No ${rows.one} ${key.provider} ${key.externalId} in ${rows.table(context)}.`,
  );
}

/**
 * What `work` finds or does on the delivery (message) `key` names, in the table `rows` names; the
 * not-found error naming it when there is none.
 */
export async function onDelivery<T>(
  context: Context,
  key: EventKey,
  rows: RowTable,
  work: (inbox: SqlInbox) => Promise<T | null | undefined>,
): Promise<T> {
  const found = await withInbox(context, work, rows);
  if (!found) throw noDelivery(context, key, rows);
  return found;
}

function print(out: Printer, delivery: StoredDelivery, withBody: boolean, rows: RowTable): void {
  const field = printRecord(out, delivery);
  const now = Date.now();
  const when = (date: Date) => `${date.toISOString()} (${ago(date, now)})`;
  for (const [name, value] of rows.fields(delivery)) field(name, value);
  field('status', delivery.status);
  field('leases', String(delivery.leases));
  field('failures', String(delivery.failures));
  if (delivery.orderingKey !== null) field('ordering', delivery.orderingKey);
  field(rows.stored, when(delivery.receivedAt));
  if (delivery.status === 'pending' || delivery.status === 'processing')
    field(
      delivery.status === 'pending' ? 'due' : 'lease until',
      `${delivery.availableAt.toISOString()} (${due(delivery, now)})`,
    );
  if (delivery.finishedAt) field('finished', when(delivery.finishedAt));
  if (delivery.lastError) field('last error', delivery.lastError);
  out.line();
  if (rows.showsHeaders) {
    out.line(out.paint('dim', 'headers'));
    for (const [name, value] of Object.entries(delivery.headers))
      out.line(escapeControls(`${name}: ${value}`, { newlines: false }));
    out.line();
  }
  const size = `${rows.body}: ${delivery.body.length} bytes`;
  if (!withBody) {
    out.line(out.paint('dim', `${size} (--${rows.body} prints them)`));
    return;
  }
  const { body, encoding } = bodyOf(delivery.body);
  out.line(out.paint('dim', `${size}${encoding === 'base64' ? ', base64' : ''}`));
  out.line(body);
}

export async function inboxShow(
  context: Context,
  key: EventKey,
  options: InboxShowCommandOptions,
  rows: RowTable = INBOX_ROWS,
): Promise<number> {
  const delivery = await onDelivery(context, key, rows, (inbox) =>
    inbox.find(key.provider, key.externalId),
  );
  const { out } = context;
  if (options.json) {
    const shown = options.body ? bodyOf(delivery.body) : undefined;
    out.line(
      JSON.stringify(
        {
          [rows.one]: {
            ...rows.json(delivery),
            ...(rows.showsHeaders ? { headers: delivery.headers } : {}),
            ...(shown ? { [rows.body]: shown.body, encoding: shown.encoding } : {}),
          },
        },
        null,
        2,
      ),
    );
  } else print(out, delivery, options.body === true, rows);
  return ExitCode.OK;
}
