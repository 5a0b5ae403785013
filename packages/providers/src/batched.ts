/**
 * @module What the batched presets (SendGrid, HubSpot, Adyen, Meta) share: the JSON array body,
 * content keys, and the preset itself, built from a row holding only what is the provider's
 * (where its items are, each item's id and fingerprint, its signature check, its event names).
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { type TypedPreset, typedBatch } from './events';
import { canonicalFingerprint } from './fingerprint';
import { bodyText, isJsonObject, type JsonObject } from './request-fields';
import type { Keyring } from './secrets';

const arrayCache = new WeakMap<HttpRequest, readonly unknown[] | undefined>();

/**
 * The request's JSON array: the framework's parsed body when it is one, else the raw bytes parsed
 * once (cached per request). `undefined` when the body is not a JSON array.
 */
export function jsonArrayBody(request: HttpRequest): readonly unknown[] | undefined {
  if (Array.isArray(request.body)) return request.body;
  if (arrayCache.has(request)) return arrayCache.get(request);
  const text = bodyText(request);
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const array = Array.isArray(parsed) ? parsed : undefined;
  arrayCache.set(request, array);
  return array;
}

/**
 * The key of an event that carries no id of its own: `sha256:` and the SHA-256 of its canonical
 * JSON. A retry re-sends the same event, so it gets the same key; two events that differ in
 * anything get two keys.
 */
export function contentKey(value: unknown): string {
  return `sha256:${canonicalFingerprint(value)}`;
}

/**
 * The item reader of a batch of JSON objects: the id `own` reads from an item (its id field), or
 * the item's {@link contentKey} when it has none (or `own` is not given); no id for an item that
 * is not an object.
 */
export function idOrContent(own: (item: JsonObject) => string | undefined = () => undefined) {
  return (value: unknown): BatchItem => ({
    id: isJsonObject(value) ? (own(value) ?? contentKey(value)) : undefined,
  });
}

/** One item of a batch as its preset reads it: its id (before any tenant) and, for some, its fingerprint. */
export interface BatchItem {
  readonly id: string | undefined;
  readonly fingerprint?: string;
}

/** One batched provider: what is that provider's, and nothing the family does for all. */
export interface BatchRow<K, T> extends Omit<ProviderPreset, 'key' | 'items' | 'verify'> {
  /** The request's items as the provider sends them; `undefined` when the body holds none. */
  readonly items: (request: HttpRequest) => readonly T[] | undefined;
  /** One item's id and fingerprint. */
  readonly item: (value: T) => BatchItem;
  /** The key among `keys` the request is signed with, or `undefined`. */
  readonly signedWith: (request: HttpRequest, keys: readonly K[]) => K | undefined;
  /** The event name of one item, for `preset.itemType(item)`. */
  readonly itemType: (item: unknown) => string | undefined;
}

/**
 * A batched preset from its keyring and row: the request has no key of its own, each item's
 * id is scoped by the tenant that verified the request, and the request is verified as a whole.
 */
export function batchedPreset<Events extends object, K, T>(
  ring: Keyring<K>,
  row: BatchRow<K, T>,
): TypedPreset<Events> {
  const { items, item, signedWith, itemType, ...own } = row;
  const preset: ProviderPreset = {
    ...own,
    key: () => undefined,
    items: (request) =>
      items(request)?.map((value) => {
        const { id, fingerprint } = item(value);
        const key = ring.scope(request, id);
        return fingerprint === undefined ? { key, value } : { key, value, fingerprint };
      }),
    verify: (request) => ring.verify(request, signedWith),
  };
  return typedBatch<Events>(preset, itemType);
}
