/** @module InMemoryInbox's rows: what one stored delivery holds, its options, and the copies it hands out. */
import { ConfigError } from '../errors';
import type { InboxStore } from './inbox-store';
import { leaseCount } from './lease-count';
import type { Delivery, DeliveryStatus, DeliverySummary, LeasedRef, StoredDelivery } from './types';

/** Options of {@link InMemoryInbox}. */
export interface InMemoryInboxOptions {
  /**
   * The inbox's clock, in milliseconds since the epoch: every due time, lease and `finishedAt` is
   * read from it (a test moves it instead of sleeping). Defaults to `Date.now`.
   */
  now?: () => number;
}

/** The text a delivery records when its lease ran out and a lease call took it over (as `SqlInbox`'s). */
export const LEASE_EXPIRED = 'LeaseExpired: the worker holding it stopped before settling it';
const KNOWN_OPTIONS: ReadonlySet<string> = new Set(['now']);
// NUL, and UTF-16 halves without their partner: what no SQL text column stores as given.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is matched on purpose, to be replaced as SqlInbox replaces it.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const storableText = (value: string): string => value.replace(UNSTORABLE, '\uFFFD');
// A provider and an external id (or an ordering key), length-prefixed so that ('a:b', 'c') and
// ('a', 'b:c') can never collide.
export const keyOf = (provider: string, part: string): string =>
  `${provider.length}:${provider}${part}`;

/** One stored delivery: what a table row of `SqlInbox` holds. */
export interface Row {
  readonly id: number;
  readonly provider: string;
  readonly externalId: string;
  readonly orderingKey: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly receivedAt: number;
  status: DeliveryStatus;
  /** How many times it was leased (`SqlInbox`'s `attempts` column). */
  leases: number;
  failures: number;
  availableAt: number;
  finishedAt: number | null;
  lastError: string | null;
}

/** What `lapsed` takes. */
export type LapsedInput = Parameters<InboxStore['lapsed']>[0];

/** The options checked once, each error naming its option. */
export function resolveInMemoryInboxOptions(options: InMemoryInboxOptions): { now: () => number } {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object');
  const unknown = Object.keys(options).find((name) => !KNOWN_OPTIONS.has(name));
  if (unknown !== undefined) throw new ConfigError(unknown, 'is not an option of InMemoryInbox');
  const { now = Date.now } = options;
  if (typeof now !== 'function') throw new ConfigError('now', 'must be a function');
  return { now };
}

export const refOf = (row: Row): LeasedRef => ({
  id: row.id,
  provider: row.provider,
  externalId: row.externalId,
  ...leaseCount(row.leases),
  failures: row.failures,
});

export const toDelivery = (row: Row): Delivery => ({
  ...refOf(row),
  orderingKey: row.orderingKey,
  headers: { ...row.headers },
  body: Buffer.from(row.body),
  receivedAt: new Date(row.receivedAt),
});

const stateOf = (row: Row) => ({
  status: row.status,
  availableAt: new Date(row.availableAt),
  finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt),
  lastError: row.lastError,
});

export const toSummary = (row: Row): DeliverySummary => ({
  ...refOf(row),
  orderingKey: row.orderingKey,
  receivedAt: new Date(row.receivedAt),
  bodyBytes: row.body.length,
  ...stateOf(row),
});

/** A copy of the whole delivery with its state, as `find` returns it. */
export const toStored = (row: Row): StoredDelivery => ({ ...toDelivery(row), ...stateOf(row) });
