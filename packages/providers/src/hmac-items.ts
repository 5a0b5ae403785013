/**
 * @module The `items` option of `hmac()`: a provider that sends several events in one signed
 * request (LINE's `events[]`, GoCardless's `events[]`) names where they are in the JSON body and
 * each one's id, and every event becomes a batch item under a receipt of its own.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetItem } from '@webhook-idempotency/core/adapter';
import { ConfigError } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { Keyring } from './secrets';

/** A reader of one value of an item: a dot path inside it (`'id'`, `'source.userId'`) or a function. */
export type ItemReader = string | ((item: unknown) => string | undefined);

/** Where a batched provider's events are, and what identifies each. */
export interface HmacItems {
  /** The dot path of the JSON array in the body: `'events'`, `'data.events'`. */
  json: string;
  /** Each event's id (kept by a retry): a dot path inside the event, or a function of it. */
  id: ItemReader;
  /** Each event's name, for `preset.itemType(item)`: a dot path inside the event, or a function. */
  type?: ItemReader;
  /**
   * Fields of each event a redelivery changes (LINE's `deliveryContext`), left out of the event's
   * fingerprint so that a redelivered event is replayed, not refused as another body.
   */
  fingerprintOmit?: readonly string[];
}

/** The value at a dot path of `value`, or `undefined` where a step is not an object. */
export function atPath(value: unknown, steps: readonly string[]): unknown {
  let at = value;
  for (const step of steps) {
    if (!isJsonObject(at)) return undefined;
    at = at[step];
  }
  return at;
}

/** A dot path's steps, each non-empty (`option` names it in the error). */
export function pathSteps(option: string, path: unknown): string[] {
  const steps = typeof path === 'string' ? path.split('.') : [];
  if (steps.length === 0 || steps.some((step) => step === ''))
    throw new ConfigError(option, `hmac() needs "${option}" as a dot path such as "events"`);
  return steps;
}

/** A reader of one text value of an item (numbers as their decimal text), from a path or a function. */
function itemReader(option: string, reader: unknown): (item: unknown) => string | undefined {
  if (typeof reader === 'function') return reader as (item: unknown) => string | undefined;
  const steps = pathSteps(option, reader);
  return (item) => idPart(atPath(item, steps));
}

/** An item's fingerprint without the fields named (none named: the engine's default, its canonical JSON). */
function omitted(fields: unknown): (item: unknown) => { fingerprint?: string } {
  if (fields === undefined) return () => ({});
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'string' && field !== ''))
    throw new ConfigError('items.fingerprintOmit', 'hmac() needs a list of field names');
  return (item) => {
    if (!isJsonObject(item)) return {};
    const kept = Object.fromEntries(
      Object.entries(item).filter(([name]) => !fields.includes(name)),
    );
    return { fingerprint: canonicalFingerprint(kept) };
  };
}

/** What a preset built with `items` adds: its items and the name of one. */
export interface ItemsOfPreset {
  /** The request's items, each keyed by its id (scoped by the tenant that verified it); `undefined` without the array. */
  items(request: HttpRequest): readonly PresetItem[] | undefined;
  /** One item's event name. */
  itemType(item: unknown): string | undefined;
  /** How a 400 names an item's missing id. */
  readonly description: string;
}

/**
 * The items of the `items` option, checked once: each request's array read from its JSON body,
 * each item keyed by its id under the tenant the keyring verified.
 * @throws {ConfigError} naming `items`, `items.json`, `items.id` or `items.type` when invalid.
 */
export function hmacItems(options: HmacItems, ring: Keyring<Buffer>): ItemsOfPreset {
  if (!isJsonObject(options))
    throw new ConfigError('items', 'hmac() needs "items" as { json, id, type? }');
  const steps = pathSteps('items.json', options.json);
  const idOf = itemReader('items.id', options.id);
  const fingerprintOf = omitted(options.fingerprintOmit);
  const typeOf =
    options.type === undefined ? () => undefined : itemReader('items.type', options.type);
  return {
    items(request) {
      const array = atPath(jsonBody(request), steps);
      if (!Array.isArray(array)) return undefined;
      return array.map((value: unknown) => ({
        key: ring.scopeText(request, idOf(value)),
        value,
        ...fingerprintOf(value),
      }));
    },
    itemType: typeOf,
    description: `${options.json}[] with an id on each`,
  };
}
