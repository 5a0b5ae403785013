/**
 * @module A batched preset's request (SendGrid, HubSpot, Adyen, Meta, …) as the inbox endpoint
 * stores it: split into one delivery per item, each keyed by the item's id at the provider, its
 * body the item's JSON (the very value `batch.each` hands a handler in guard mode), so the worker
 * runs each event once however the provider retries or re-batches the request
 * (docs/inbox.md#batched-providers).
 */
import type { IdempotencyError } from '../errors';
import { type Refusal, refusedItems } from '../http/batch';
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
  /**
   * Why items without a usable id (none, or one the inbox cannot hold) are refused, naming them,
   * with the guard's code for it (`ERR_IDEMPOTENCY_KEY_MISSING` or `_KEY_INVALID`, 400);
   * `undefined` when there are none.
   */
  readonly refused?: IdempotencyError;
}

/** An item's stored bytes: the JSON of the value the preset read for it. */
export function itemBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
}

/**
 * Splits a batched request into its items' deliveries. An id the batch repeats is stored once,
 * under its first item (the inbox keeps the first delivery of an id, as for a single delivery).
 * An item without a usable id is refused alone, as the guard refuses it (`refused`): no
 * redelivery gives it an id, and refusing the whole batch would never store its other events.
 * @param orderingOf the ordering key of an item's bytes (`inbox({ orderingKey })`), checked.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_KEY_MISSING` for a batch without items or without
 * any item with a valid id (the guard refuses it whole; passed on with `onMissingKey:
 * 'passthrough'`), `ERR_IDEMPOTENCY_KEY_INVALID` for an ordering key the inbox cannot hold.
 */
export function splitBatch(
  provider: string,
  items: readonly PresetItem[],
  keyDescription: string,
  orderingOf: (body: Buffer) => string | null,
): SplitBatch {
  const read = readBatch(provider, items, keyDescription, false);
  const refusals: Refusal[] = [];
  const deliveries: KeyedDelivery[] = [];
  for (const { key, value, refusal, sameAs } of read.entries) {
    if (refusal) refusals.push({ key, error: refusal });
    else if (sameAs === undefined) {
      const body = itemBody(value);
      deliveries.push({ key, ordering: orderingOf(body), body });
    }
  }
  const refused = refusals.length > 0 ? refusedItems(refusals) : undefined;
  return { key: read.key, items: deliveries, ...(refused && { refused }) };
}
