/**
 * @module How a batched request is read (docs/providers.md#batched-deliveries): its items, each
 * keyed by its id at the provider, the repeats of an id within the batch collapsed onto its first
 * item, and the request's own key and fingerprint, digests of its items.
 */
import { ErrorCode, FingerprintMismatch, IdempotencyError, InvalidRequestKey } from '../errors';
import { RequestKey } from '../request-key';
import type { BatchItem, PresetItem } from './batch-types';
import { canonicalJson, sha256Hex } from './fingerprint';

/** An item as the batch runs it: its key, its fingerprint (`null` when fingerprinting is off). */
export interface BatchEntry extends BatchItem {
  readonly fingerprint: string | null;
  /** The index of an earlier item with the same id and payload: this one shares its outcome. */
  readonly sameAs?: number;
  /**
   * Why the item is refused without reaching the store: its id repeats an earlier item's with
   * another payload, which no redelivery of the batch changes.
   */
  readonly refusal?: IdempotencyError;
  /**
   * The item carries no valid id: refused (`refusal`), its `key` only a name for the answer
   * (`item:<index>`), never looked up or written.
   */
  readonly unkeyed?: true;
}

/** A batched request read: the request's own key and fingerprint, and its items. */
export interface ReadBatch {
  readonly key: RequestKey;
  readonly fingerprint: string | null;
  readonly entries: readonly BatchEntry[];
}

/** Prefix of the external id of a batch's own receipt: no provider id we key on starts with it. */
const BATCH_PREFIX = 'batch:';
/** In the digest of a batch's ids, an item without a valid id, by its content. */
const UNKEYED_PREFIX = '\u0000unkeyed:';

/**
 * Reads what a preset's `items` returned: each item keyed by its id. An item without a valid id is
 * refused alone (`refusal`, answered at the end of the batch), as no redelivery gives it one; the
 * others run. The request's own key is a digest of its distinct item ids, in sorted order, so the
 * same set of events re-sent in another order or another request is the same batch; its
 * fingerprint, a digest of each item's id and fingerprint (items refused for their id count in
 * neither). An id the batch repeats is run once: see {@link collapse}.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_KEY_MISSING` for a batch with no items, or none
 * with a valid id (the whole request refused: no receipt at all).
 */
export function readBatch(
  provider: string,
  items: readonly PresetItem[],
  keyDescription: string,
  fingerprinting: boolean,
): ReadBatch {
  if (!Array.isArray(items) || items.length === 0)
    throw new IdempotencyError(
      ErrorCode.KEY_MISSING,
      `The request carries no items (provider "${provider}"), so it cannot be deduplicated`,
    );
  const entries = collapse(
    items.map((item, index) => entryOf(provider, item, index, keyDescription, fingerprinting)),
  );
  const keyed = entries.filter((entry) => !entry.unkeyed);
  if (keyed.length === 0) throw entries[0]!.refusal!;
  // JSON-encoded lists: no id (a custom preset's may hold any character) can pass for two.
  // An item without a valid id counts by its content: a batch re-sent with one more of them is
  // another batch (its new item answered), never the replay of the batch without it.
  const unkeyed = entries
    .filter((entry) => entry.unkeyed)
    .map((entry) => `${UNKEYED_PREFIX}${sha256Hex(canonicalJson(entry.value))}`);
  const ids = [...new Set([...keyed.map((entry) => entry.key.externalId), ...unkeyed])].sort();
  const key = new RequestKey(provider, `${BATCH_PREFIX}${sha256Hex(JSON.stringify(ids))}`);
  if (!fingerprinting) return { key, fingerprint: null, entries };
  const lines = keyed.map((entry) => JSON.stringify([entry.key.externalId, entry.fingerprint]));
  return { key, fingerprint: sha256Hex(JSON.stringify([...new Set(lines)].sort())), entries };
}

/** Item `index` as the batch runs it, or refused alone when it carries no valid id. */
function entryOf(
  provider: string,
  item: PresetItem,
  index: number,
  keyDescription: string,
  fingerprinting: boolean,
): BatchEntry {
  const value = item?.value;
  const fingerprint = fingerprinting
    ? (item?.fingerprint ?? sha256Hex(canonicalJson(value)))
    : null;
  const id = item?.key;
  let refusal: IdempotencyError;
  if (id === undefined || id === null || id === '')
    refusal = new IdempotencyError(
      ErrorCode.KEY_MISSING,
      `Item ${index} of the request carries no ${keyDescription} (provider "${provider}"), so it cannot be deduplicated`,
    );
  else {
    try {
      return { key: new RequestKey(provider, id), value, fingerprint };
    } catch (error) {
      if (!(error instanceof InvalidRequestKey)) throw error;
      refusal = error;
    }
  }
  return {
    key: new RequestKey(provider, `item:${index}`),
    value,
    fingerprint,
    refusal,
    unkeyed: true,
  };
}

/**
 * An id the batch carries more than once runs once, under its first item: a later item with the
 * same fingerprint (any, when fingerprinting is off) shares that item's outcome; one with another
 * fingerprint is refused alone, as a redelivery of the id with another payload would be.
 */
function collapse(entries: readonly BatchEntry[]): BatchEntry[] {
  const first = new Map<string, number>();
  return entries.map((entry, index) => {
    if (entry.unkeyed) return entry;
    const earlier = first.get(entry.key.externalId);
    if (earlier === undefined) {
      first.set(entry.key.externalId, index);
      return entry;
    }
    if (entries[earlier]?.fingerprint === entry.fingerprint) return { ...entry, sameAs: earlier };
    const { provider, externalId } = entry.key;
    return { ...entry, refusal: new FingerprintMismatch(provider, externalId) };
  });
}
