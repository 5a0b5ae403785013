/**
 * @module Which inbox deliveries `redeliver` by query takes: the statuses it can change (dead,
 * waiting for a backoff, done), a provider and a received-time range, read page by page through
 * the store's listing (a keyset on the delivery id, never the whole table at once). Each match is
 * kept with the state it was listed in, which the writes then compare against.
 */
import type { DeliverySummary, InboxStore } from '@webhook-idempotency/core/inbox';
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../durations';

/**
 * What a query can select: `dead` deliveries; `waiting` ones (pending after a failure or a
 * release, not due until their backoff passes); `done` ones (their handler runs again: `--force`).
 */
export const BULK_STATUSES = ['dead', 'waiting', 'done'] as const;
/** One of {@link BULK_STATUSES}. */
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** The stored status each selectable one is listed by. */
const STORED = { dead: 'dead', waiting: 'pending', done: 'done' } as const;

/** A query of `redeliver`: statuses, and the optional filters. */
export interface RedeliverQuery {
  readonly statuses: readonly BulkStatus[];
  readonly provider?: string;
  /** Received at or after (inclusive). */
  readonly receivedFrom?: Date;
  /** Received before (exclusive). */
  readonly receivedBefore?: Date;
  /** Rows per listing read. */
  readonly pageSize: number;
}

/** A delivery the query selected, in the state it was listed in. */
export interface Planned {
  readonly id: number;
  readonly provider: string;
  readonly externalId: string;
  /** The stored status as listed: what the write compares against, with `leases`. */
  readonly status: 'dead' | 'pending' | 'done';
  /** Its lease count as listed. */
  readonly leases: number;
  readonly receivedAt: Date;
  /** `pending`: when it would become due without the repair. */
  readonly availableAt: Date;
}

/** `dead,waiting` → the statuses, for commander; an unknown name is a usage error naming the choices. */
export function parseBulkStatuses(value: string, previous: BulkStatus[] = []): BulkStatus[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.find((name) => !(BULK_STATUSES as readonly string[]).includes(name));
  if (unknown !== undefined || names.length === 0)
    throw new InvalidArgumentError(
      `unknown status ${JSON.stringify(unknown ?? value)}: use ${BULK_STATUSES.join(', ')} ` +
        '(waiting: pending after a failure, until its backoff passes).',
    );
  return [...new Set([...previous, ...(names as BulkStatus[])])];
}

/**
 * A point in time: a duration before now (`90m`, `24h`, `7d`, as the other windows) or an ISO
 * 8601 date/time (`2026-12-01`, `2026-12-01T09:30:00Z`); for commander.
 */
export function parseTime(value: string): Date {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?(ms|s|m|h|d)?$/.test(trimmed))
    return new Date(Date.now() - parseDuration(trimmed));
  const at = /^\d{4}-\d\d-\d\d/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(at))
    throw new InvalidArgumentError(
      'expected a duration before now (90m, 24h, 7d) or an ISO date/time (2026-12-01T09:30:00Z).',
    );
  return new Date(at);
}

/** The listed summary as a planned change, or `undefined` when the repair would change nothing. */
function plan(d: DeliverySummary, now: number): Planned | undefined {
  if (d.status === 'processing') return undefined;
  // A pending delivery that is due already is the worker's next: nothing to make due.
  if (d.status === 'pending' && d.availableAt.getTime() <= now) return undefined;
  return {
    id: d.id,
    provider: d.provider,
    externalId: d.externalId,
    status: d.status,
    leases: d.leases,
    receivedAt: d.receivedAt,
    availableAt: d.availableAt,
  };
}

/**
 * Every delivery `query` selects, in id (receipt) order, read `pageSize` rows at a time through
 * `InboxStore.list` (status, provider and received time filtered by the store; an `afterId`
 * cursor), one listing per status. `now` judges whether a pending delivery is still waiting.
 */
export async function selectDeliveries(
  inbox: InboxStore,
  query: RedeliverQuery,
  now = Date.now(),
): Promise<Planned[]> {
  const selected: Planned[] = [];
  for (const status of query.statuses) {
    for (let afterId = 0; ; ) {
      const page = await inbox.list({
        status: STORED[status],
        ...(query.provider !== undefined ? { provider: query.provider } : {}),
        ...(query.receivedFrom ? { receivedFrom: query.receivedFrom } : {}),
        ...(query.receivedBefore ? { receivedBefore: query.receivedBefore } : {}),
        limit: query.pageSize,
        afterId,
      });
      for (const d of page) {
        const planned = plan(d, now);
        if (planned) selected.push(planned);
      }
      if (page.length < query.pageSize) break;
      afterId = page[page.length - 1]!.id;
    }
  }
  return selected.sort((a, b) => a.id - b.id);
}
