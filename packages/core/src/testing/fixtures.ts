/**
 * @module What the store conformance cases share: a key claimed (or claimed and completed) now,
 * where most cases start, a take-over of a stale claim, and the expectation on a receipt read back
 * now, where most cases end; and the fencing by claim time that a complete and a fail share.
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

/**
 * Expects a settling write fenced by the claim time (`settle`: a complete or a fail of `key`) to be
 * refused with a claim time `offsetsMs` off `claimedAt`, the receipt left as `unchanged`, and then
 * accepted with `claimedAt` itself.
 */
export async function expectFencedByClaimedAt(
  store: Store<unknown>,
  now: () => number,
  key: KeyLike,
  fence: { readonly claimedAt: Date; readonly offsetsMs: readonly number[] },
  settle: (claimedAt: Date) => Promise<boolean>,
  unchanged: Partial<ObservedReceipt>,
): Promise<void> {
  const at = fence.claimedAt.getTime();
  for (const off of fence.offsetsMs) expect(await settle(new Date(at + off))).toBe(false);
  await expectReceipt(store, now, key, unchanged);
  expect(await settle(fence.claimedAt)).toBe(true);
}
