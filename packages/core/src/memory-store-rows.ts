/**
 * @module The rows of `InMemoryStore`: their shape, their map key, how a row is observed, and the
 * store's options, checked.
 */
import type { ReceiptStatus } from './constants';
import { SECOND } from './constants';
import { ConfigError } from './errors';
import type { KeyLike } from './request-key';
import type { ObservedReceipt } from './store-contract';

/** One receipt held in memory. */
export interface Row {
  provider: string;
  externalId: string;
  status: ReceiptStatus;
  response: string | null;
  attempts: number;
  error: string | null;
  fingerprint: string | null;
  claimedAt: number;
  finishedAt: number | null;
  /** Neighbours in the list of finished rows (oldest first); null at the ends or when not in it. */
  older: Row | null;
  newer: Row | null;
}

/** A key as one string, for a set of keys. Length-prefixed so that ('a:b', 'c') and ('a', 'b:c') can never collide. */
export const mapKey = (key: KeyLike): string =>
  `${key.provider.length}:${key.provider}${key.externalId}`;

/**
 * The rows by provider, then by external id. A lookup hashes the key's own two strings (a string
 * keeps its hash once computed) where one map keyed by a joined string would build and hash a new
 * string on every call: three times per delivery (claim, then complete or fail).
 */
export class RowTable {
  private readonly byProvider = new Map<string, Map<string, Row>>();
  /** How many rows are held. */
  size = 0;

  get(key: KeyLike): Row | undefined {
    return this.byProvider.get(key.provider)?.get(key.externalId);
  }

  add(row: Row): void {
    let rows = this.byProvider.get(row.provider);
    if (!rows) {
      rows = new Map();
      this.byProvider.set(row.provider, rows);
    }
    rows.set(row.externalId, row);
    this.size++;
  }

  delete(row: Row): void {
    const rows = this.byProvider.get(row.provider);
    if (!rows?.delete(row.externalId)) return;
    this.size--;
    if (rows.size === 0) this.byProvider.delete(row.provider);
  }

  /** Every row; deleting the current one while iterating is safe (a Map's iteration allows it). */
  *values(provider?: string): Generator<Row> {
    if (provider !== undefined) {
      const rows = this.byProvider.get(provider);
      if (rows) yield* rows.values();
      return;
    }
    for (const rows of this.byProvider.values()) yield* rows.values();
  }
}

/** A new row of `key`, in no list yet: every field written out (a spread copies property by property). */
export function newRow(
  key: KeyLike,
  fields: Pick<Row, 'status' | 'response' | 'fingerprint' | 'claimedAt' | 'finishedAt'>,
): Row {
  return {
    provider: key.provider,
    externalId: key.externalId,
    status: fields.status,
    response: fields.response,
    attempts: 1,
    error: null,
    fingerprint: fields.fingerprint,
    claimedAt: fields.claimedAt,
    finishedAt: fields.finishedAt,
    older: null,
    newer: null,
  };
}

/** The receipt a row holds, as read at `now`. */
export function observe(row: Row, now: number): ObservedReceipt {
  return {
    provider: row.provider,
    externalId: row.externalId,
    status: row.status,
    response: row.response,
    attempts: row.attempts,
    error: row.error,
    fingerprint: row.fingerprint,
    claimedAt: new Date(row.claimedAt),
    finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt),
    claimAgeMs: now - row.claimedAt,
  };
}

/** Options of {@link InMemoryStore}. */
export interface InMemoryStoreOptions {
  /**
   * The most receipts held at once. Past it, the finished (`completed` or `failed`) receipt that
   * finished longest ago is dropped; a `processing` receipt never is, so the bound can be passed
   * by as many claims as are in flight. A duplicate of a dropped receipt runs the handler again:
   * size the bound to the deliveries of the provider's redelivery window (docs/providers.md).
   * Defaults to 10,000; `Infinity` keeps everything (then call `guard.purge()` on a schedule).
   */
  maxReceipts?: number;
  /**
   * Finished receipts older than this many seconds (by the caller's clock) are dropped as new
   * claims arrive, as `guard.purge({ retentionDays })` would drop them. Defaults to no limit.
   */
  retentionSeconds?: number;
}

/** Default bound of {@link InMemoryStoreOptions.maxReceipts}. */
const DEFAULT_MAX_RECEIPTS = 10_000;

/**
 * The options, checked: the bound and the retention in milliseconds.
 * @throws {ConfigError} naming `maxReceipts` or `retentionSeconds`.
 */
export function resolveMemoryOptions(options: InMemoryStoreOptions): {
  maxReceipts: number;
  retentionMs: number;
} {
  const { maxReceipts = DEFAULT_MAX_RECEIPTS, retentionSeconds = Number.POSITIVE_INFINITY } =
    options;
  if (
    typeof maxReceipts !== 'number' ||
    !(
      maxReceipts === Number.POSITIVE_INFINITY ||
      (Number.isSafeInteger(maxReceipts) && maxReceipts > 0)
    )
  ) {
    throw new ConfigError(
      'maxReceipts',
      `must be a positive integer or Infinity, got ${String(maxReceipts)}`,
    );
  }
  if (
    typeof retentionSeconds !== 'number' ||
    Number.isNaN(retentionSeconds) ||
    retentionSeconds <= 0
  ) {
    throw new ConfigError(
      'retentionSeconds',
      `must be a positive number of seconds or Infinity, got ${String(retentionSeconds)}`,
    );
  }
  return { maxReceipts, retentionMs: retentionSeconds * SECOND };
}

/** Whole milliseconds of a first run's handler time: rounded, never negative, 0 when not finite. */
export const wholeHandlerMs = (handlerMs: number): number =>
  Number.isFinite(handlerMs) ? Math.max(0, Math.round(handlerMs)) : 0;

/** True when `keys` names every key once. */
export function distinctKeys(keys: readonly KeyLike[]): boolean {
  return new Set(keys.map(mapKey)).size === keys.length;
}
