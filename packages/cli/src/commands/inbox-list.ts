/** @module `inbox list`: stored inbox deliveries by status, provider and time received, in receipt order. */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import type {
  DeliveryStatus,
  DeliverySummary,
  StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import { formatAge } from '../durations';
import { ExitCode } from '../exit-codes';
import { type Context, withInbox } from '../session';
import { COLUMN, printListing } from './layout';

/** Options of `inbox list`. */
export interface InboxListCommandOptions {
  readonly status?: DeliveryStatus;
  readonly provider?: string;
  /** Only deliveries received within this many milliseconds before now (this machine's clock). */
  readonly since?: number;
  readonly limit: number;
  readonly json?: boolean;
}

/** A delivery for `--json`: dates as ISO strings, the body's size but never its bytes. */
export const deliveryJson = (delivery: DeliverySummary | StoredDelivery) => ({
  id: delivery.id,
  provider: delivery.provider,
  externalId: delivery.externalId,
  orderingKey: delivery.orderingKey,
  status: delivery.status,
  ...leaseCount(delivery.leases),
  failures: delivery.failures,
  receivedAt: delivery.receivedAt.toISOString(),
  availableAt: delivery.availableAt.toISOString(),
  finishedAt: delivery.finishedAt?.toISOString() ?? null,
  lastError: delivery.lastError,
  bodyBytes: 'body' in delivery ? delivery.body.length : delivery.bodyBytes,
});

/** `12m ago`, from this machine's clock. */
export const ago = (date: Date, now = Date.now()) => `${formatAge(now - date.getTime())} ago`;

/** When a pending delivery is due (`now`, `in 12s`), how long a processing one's lease lasts (`lease 2m`). */
export function due(delivery: DeliverySummary | StoredDelivery, now = Date.now()): string {
  const left = delivery.availableAt.getTime() - now;
  if (delivery.status === 'pending') return left <= 0 ? 'now' : `in ${formatAge(left)}`;
  if (delivery.status === 'processing') return left <= 0 ? 'expired' : `lease ${formatAge(left)}`;
  return '-';
}

export async function inboxList(
  context: Context,
  options: InboxListCommandOptions,
): Promise<number> {
  const { out } = context;
  const deliveries = await withInbox(context, (inbox) =>
    inbox.list({
      ...(options.status ? { status: options.status } : {}),
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.since !== undefined
        ? { receivedFrom: new Date(Date.now() - options.since) }
        : {}),
      limit: options.limit,
    }),
  );
  printListing(out, options.json, {
    name: 'deliveries',
    items: deliveries,
    json: deliveryJson,
    table: deliveryTable,
    limit: options.limit,
  });
  return ExitCode.OK;
}

/** The deliveries' table: when each is due, its last error. */
function deliveryTable(deliveries: readonly DeliverySummary[]) {
  const now = Date.now();
  const rows = deliveries.map((d) => [
    d.provider,
    d.externalId,
    d.status,
    String(d.leases),
    String(d.failures),
    due(d, now),
    d.lastError ?? '',
  ]);
  const { provider, id, status, leases, failures, error } = COLUMN;
  const columns = [provider, id, status, leases, failures, { header: 'due' }, error('last error')];
  return { columns, rows };
}
