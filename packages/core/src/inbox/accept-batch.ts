/**
 * @module A batched preset's request (SendGrid, HubSpot, Adyen, Meta, …) as the inbox endpoint
 * stores it: split into one delivery per item, each keyed by the item's id at the provider, its
 * body the item's JSON (the very value `batch.each` hands a handler in guard mode), so the worker
 * runs each event once however the provider retries or re-batches the request
 * (docs/inbox.md#batched-providers).
 */
import type { IdempotencyError } from '../errors';
import { readBatch } from '../http/batch-read';
import type { PresetItem } from '../http/batch-types';
import type { RequestKey } from '../request-key';

/** The content type of an item's stored body: its JSON, whatever the request's encoding was. */
export const ITEM_CONTENT_TYPE = 'application/json; charset=utf-8';

/** One delivery to store: its key, its ordering key and its bytes. */
export interface KeyedDelivery {
  readonly key: RequestKey;
  readonly ordering: string | null;
  readonly body: Buffer;
}

/** A batch split for storing: the request's own key (a digest of its item ids) and its items. */
export interface SplitBatch {
  /** `batch:` and the SHA-256 of the distinct item ids, as the guard keys the request: named in `answered` events. */
  readonly key: RequestKey;
  /** One delivery per distinct item id, in the request's order (a repeated id stored once, under its first item). */
  readonly items: readonly KeyedDelivery[];
}

/** An item's stored bytes: the JSON of the value the preset read for it. */
export function itemBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
}

/**
 * Splits a batched request into its items' deliveries. An id the batch repeats is stored once,
 * under its first item (the inbox keeps the first delivery of an id, as for a single delivery).
 * An item without a usable id (none, or one the inbox cannot hold) refuses the whole batch with
 * the guard's error for it (`refused`, 400), before anything is stored: no redelivery gives that
 * item an id, and storing the others would answer the provider as if the batch were taken.
 * @param orderingOf the ordering key of an item's bytes (`inbox({ orderingKey })`), checked.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_KEY_MISSING` for a batch without items or without
 * any item with a valid id (the guard's refusal, passed through with `onMissingKey`);
 * `ERR_IDEMPOTENCY_KEY_INVALID` for an ordering key the inbox cannot hold.
 */
export function splitBatch(
  provider: string,
  items: readonly PresetItem[],
  keyDescription: string,
  orderingOf: (body: Buffer) => string | null,
): SplitBatch | { readonly refused: IdempotencyError } {
  const read = readBatch(provider, items, keyDescription, false);
  const refused = read.entries.find((entry) => entry.refusal !== undefined)?.refusal;
  if (refused) return { refused };
  const deliveries: KeyedDelivery[] = [];
  for (const entry of read.entries) {
    if (entry.sameAs !== undefined) continue;
    const body = itemBody(entry.value);
    deliveries.push({ key: entry.key, ordering: orderingOf(body), body });
  }
  return { key: read.key, items: deliveries };
}
