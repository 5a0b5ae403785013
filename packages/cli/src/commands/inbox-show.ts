/** @module `inbox show`: one stored delivery, its state and headers; its body bytes only with `--body`. */
import type { StoredDelivery } from '@webhook-idempotency/core/inbox';
import { CliError, ExitCode } from '../exit-codes';
import { escapeControls, type Printer } from '../output';
import { type Context, type EventKey, withInbox } from '../session';
import { ago, deliveryJson, due } from './inbox-list';
import { printRecord } from './layout';

/** Options of `inbox show`. */
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

/** No delivery under this key: exit `NOT_FOUND`. */
export function noDelivery(context: Context, key: EventKey) {
  return new CliError(
    ExitCode.NOT_FOUND,
    `No delivery ${key.provider} ${key.externalId} in ${context.inboxTable}.`,
  );
}

function print(out: Printer, delivery: StoredDelivery, withBody: boolean): void {
  const field = printRecord(out, delivery);
  const now = Date.now();
  const when = (date: Date) => `${date.toISOString()} (${ago(date, now)})`;
  field('status', delivery.status);
  field('leases', String(delivery.leases));
  field('failures', String(delivery.failures));
  if (delivery.orderingKey !== null) field('ordering', delivery.orderingKey);
  field('received', when(delivery.receivedAt));
  if (delivery.status === 'pending' || delivery.status === 'processing')
    field(
      delivery.status === 'pending' ? 'due' : 'lease until',
      `${delivery.availableAt.toISOString()} (${due(delivery, now)})`,
    );
  if (delivery.finishedAt) field('finished', when(delivery.finishedAt));
  if (delivery.lastError) field('last error', delivery.lastError);
  out.line();
  out.line(out.paint('dim', 'headers'));
  for (const [name, value] of Object.entries(delivery.headers))
    out.line(escapeControls(`${name}: ${value}`, { newlines: false }));
  out.line();
  if (!withBody) {
    out.line(out.paint('dim', `body: ${delivery.body.length} bytes (--body prints them)`));
    return;
  }
  const { body, encoding } = bodyOf(delivery.body);
  out.line(
    out.paint(
      'dim',
      `body: ${delivery.body.length} bytes${encoding === 'base64' ? ', base64' : ''}`,
    ),
  );
  out.line(body);
}

export async function inboxShow(
  context: Context,
  key: EventKey,
  options: InboxShowCommandOptions,
): Promise<number> {
  const { out } = context;
  const delivery = await withInbox(context, (inbox) => inbox.find(key.provider, key.externalId));
  if (!delivery) throw noDelivery(context, key);
  if (options.json)
    out.line(
      JSON.stringify(
        {
          delivery: {
            ...deliveryJson(delivery),
            headers: delivery.headers,
            ...(options.body ? bodyOf(delivery.body) : {}),
          },
        },
        null,
        2,
      ),
    );
  else print(out, delivery, options.body === true);
  return ExitCode.OK;
}
