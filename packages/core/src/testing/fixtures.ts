/**
 * @module What the store conformance cases share: a key claimed (or claimed and completed) now,
 * where most cases start, a take-over of a stale claim, and the expectation on a receipt read back
 * now, where most cases end.
 */
import type { KeyLike } from '../request-key';
import type { ObservedReceipt, Store } from '../types';

/** `key`, claimed now without a fingerprint. */
export async function claimed<K extends KeyLike>(
  store: Store<unknown>,
  now: () => number,
  key: K,
): Promise<K> {
  await store.claim(key, { now: now(), fingerprint: null });
  return key;
}

/** Expects the receipt of `key`, read now, to match `expected`. */
export async function expectReceipt(
  store: Store<unknown>,
  now: () => number,
  key: KeyLike,
  expected: Partial<ObservedReceipt>,
): Promise<void> {
  expect(await store.find(key, { now: now() })).toMatchObject(expected);
}

/** `key`, claimed and completed now with `response` (a finished receipt, for purge cases). */
export async function completed<K extends KeyLike>(
  store: Store<unknown>,
  now: () => number,
  key: K,
  response: string,
): Promise<K> {
  await claimed(store, now, key);
  await store.complete(key, { now: now(), attempts: 1, response });
  return key;
}

/** Staleness threshold of the take-over cases; margins are seconds wide so a real database clock can tick meanwhile. */
export const STALE_MS = 60_000;

/** A take-over of `key`'s claim now, by a delivery that saw `attempts`, stale after {@link STALE_MS}. */
export const takeOver = (
  store: Store<unknown>,
  now: () => number,
  key: KeyLike,
  attempts: number,
) => store.reclaim(key, { now: now(), attempts, staleAfterMs: STALE_MS });
