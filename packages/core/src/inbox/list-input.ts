/** @module The inputs of `InboxStore.list` and `InboxStore.purge`, checked once for every store, with their defaults. */
import { ConfigError } from '../errors';
import { purgeChunkSize } from '../renamed-option';
import { numberOption } from './run';
import { type DeliveryListInput, DeliveryStatus } from './types';
import type { InboxStore } from './inbox-store';

/** Most rows one `list` returns when no `limit` is given (`ReceiptsAdmin.list`'s is 50). */
const DEFAULT_LIST_LIMIT = 100;
/** The largest `limit` one `list` takes: page with `afterId` past it. */
const MAX_LIST_LIMIT = 10_000;
const STATUSES: ReadonlySet<string> = new Set(Object.values(DeliveryStatus));

/** A received-time bound as epoch milliseconds; `undefined` stays `undefined`, anything but a valid Date is refused. */
function timeBound(option: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
  const got =
    value instanceof Date
      ? 'an invalid Date'
      : typeof value === 'string'
        ? JSON.stringify(value)
        : String(value);
  throw new ConfigError(option, `must be a valid Date, got ${got}`);
}

/**
 * An `InboxStore.list` input, checked, with its defaults: `limit` 100 (at most 10 000), `afterId`
 * 0; the received-time bounds as epoch milliseconds (`receivedFromMs` inclusive, `receivedBeforeMs`
 * exclusive; `undefined`: no bound). What `SqlInbox` and `InMemoryInbox` both take; for other
 * inbox stores' authors.
 * @throws {ConfigError} for an unknown `status`, a `limit` that is not a whole number from 1 to
 * 10 000, an `afterId` that is not a whole number >= 0, or a `receivedFrom` / `receivedBefore`
 * that is not a valid `Date`.
 */
export function resolveListInput(input: DeliveryListInput): {
  readonly status: DeliveryStatus | undefined;
  readonly provider: string | undefined;
  readonly receivedFromMs: number | undefined;
  readonly receivedBeforeMs: number | undefined;
  readonly limit: number;
  readonly afterId: number;
} {
  const { status, provider, limit = DEFAULT_LIST_LIMIT, afterId = 0 } = input;
  numberOption('afterId', afterId, 0, true);
  const receivedFromMs = timeBound('receivedFrom', input.receivedFrom);
  const receivedBeforeMs = timeBound('receivedBefore', input.receivedBefore);
  if (Number.isSafeInteger(limit) && limit > MAX_LIST_LIMIT)
    throw new ConfigError(
      'limit',
      `must be at most ${MAX_LIST_LIMIT}, got ${limit}: page with afterId`,
    );
  if (status !== undefined && !STATUSES.has(status))
    throw new ConfigError('status', `must be one of ${[...STATUSES].join(', ')}`);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new ConfigError('limit', `must be a positive whole number, got ${String(limit)}`);
  return { status, provider, receivedFromMs, receivedBeforeMs, limit, afterId };
}

/**
 * An `InboxStore.purge` input, checked, with its `chunkSize` (or its deprecated name `batchSize`;
 * default 1000). What `SqlInbox` and `InMemoryInbox` both take; for other inbox stores' authors.
 * @throws {ConfigError} for an `olderThanMs` that is not a number >= 0, a `chunkSize` that is not
 * a whole number >= 1, or `chunkSize` and `batchSize` given with different values.
 */
export function resolvePurgeInput(input: Parameters<InboxStore['purge']>[0]): {
  olderThanMs: number;
  chunkSize: number;
} {
  const { olderThanMs } = input;
  const chunkSize = purgeChunkSize(input);
  numberOption('olderThanMs', olderThanMs, 0);
  numberOption('chunkSize', chunkSize, 0, true);
  if (chunkSize < 1) throw new ConfigError('chunkSize', 'must be at least 1');
  return { olderThanMs, chunkSize };
}
