/** @module Conformance cases: stale claims, take-over and fencing. */
import type { KeyLike } from '../request-key';
import { claimed, expectReceipt, STALE_MS, takeOver } from './fixtures';
import type { CaseContext, ConformanceCase } from './types';

/** `key`, claimed now and then left past the stale threshold: a take-over may have it. */
async function leftStale<K extends KeyLike>(context: CaseContext<unknown>, key: K): Promise<K> {
  await claimed(context.store, context.now, key);
  await context.advance(STALE_MS + 5_000);
  return key;
}

/** Take-overs by deliveries that saw each of `attempts` are refused: the first claim stands. */
async function expectTakeOversRefused(
  { store, now }: CaseContext<unknown>,
  key: KeyLike,
  attempts: readonly number[],
): Promise<void> {
  for (const seen of attempts) expect(await takeOver(store, now, key, seen)).toBeNull();
  await expectReceipt(store, now, key, { status: 'processing', attempts: 1 });
}

export const staleCases: ConformanceCase[] = [
  {
    group: 'stale',
    name: 'a fresh processing claim cannot be taken over',
    async run(context) {
      const { store, now, key, advance } = context;
      const k = await claimed(store, now, key('fresh'));
      expect(await takeOver(store, now, k, 1)).toBeNull();
      await advance(STALE_MS - 10_000);
      await expectTakeOversRefused(context, k, [1]);
    },
  },
  {
    group: 'stale',
    name: 'claimAgeMs grows with the store clock',
    async run({ store, now, key, advance }) {
      const k = await claimed(store, now, key('age'));
      await advance(30_000);
      const found = await store.find(k, { now: now() });
      expect(found?.claimAgeMs).toBeGreaterThanOrEqual(30_000);
      expect(found?.claimAgeMs).toBeLessThan(40_000);
    },
  },
  {
    group: 'stale',
    name: 'a stale claim is taken over with attempts + 1 and a new claimedAt',
    async run({ store, now, key, advance }) {
      const k = key('stale');
      await store.claim(k, { now: now(), fingerprint: 'fp' });
      await advance(STALE_MS + 5_000);
      // Read after advancing: a store-clocked store shifts the stored claim back instead of moving
      // "now", and a take-over in the same millisecond as the claim must not look like "no change".
      const stale = await store.find(k, { now: now() });
      const taken = await takeOver(store, now, k, 1);
      expect(taken).toMatchObject({ status: 'processing', attempts: 2, fingerprint: 'fp' });
      expect(taken!.claimAgeMs).toBeLessThan(5_000);
      expect(taken!.claimedAt.getTime()).toBeGreaterThan(stale!.claimedAt.getTime());
      // The new claim is fresh again.
      expect(await takeOver(store, now, k, 2)).toBeNull();
    },
  },
  {
    group: 'stale',
    name: 'take-over needs the attempts seen',
    async run(context) {
      const k = await leftStale(context, context.key('stale-seen'));
      await expectTakeOversRefused(context, k, [2, 0]);
    },
  },
  {
    group: 'stale',
    name: 'fencing: a worker whose claim was taken over cannot complete or fail',
    async run(context) {
      const { store, now } = context;
      const k = await leftStale(context, context.key('fencing'));
      expect(await takeOver(store, now, k, 1)).not.toBeNull();
      // The first worker wakes up late.
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"zombie"' })).toBe(
        false,
      );
      expect(await store.fail(k, { now: now(), attempts: 1, error: 'zombie' })).toBe(false);
      await expectReceipt(store, now, k, {
        status: 'processing',
        attempts: 2,
        response: null,
        error: null,
      });
      // The new owner's result stands, and the zombie still cannot overwrite it.
      expect(await store.complete(k, { now: now(), attempts: 2, response: '"owner"' })).toBe(true);
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"zombie"' })).toBe(
        false,
      );
      await expectReceipt(store, now, k, { status: 'completed', attempts: 2, response: '"owner"' });
    },
  },
  {
    group: 'stale',
    name: 'a claim is identified by attempts and claimedAt: after takeover, completion, purge and a new claim (attempts 1 again), the first owner cannot complete or fail',
    async run({ store, now, key, advance }) {
      const k = key('reused-token');
      // The fenced writes of the owner of (attempts, claimedAt), as each owner would send them.
      const completeAs = (attempts: number, claimedAt: Date, response: string) =>
        store.complete(k, { now: now(), attempts, claimedAt, response });
      const failAs = (attempts: number, claimedAt: Date) =>
        store.fail(k, { now: now(), attempts, claimedAt, error: 'zombie' });
      const first = await store.claim(k, { now: now(), fingerprint: null });
      expect(first).toMatchObject({ won: true, receipt: { attempts: 1 } });
      const firstClaimedAt = first.receipt.claimedAt;
      // The first owner stalls; the next delivery takes over and completes.
      await advance(STALE_MS + 5_000);
      const taken = await takeOver(store, now, k, 1);
      expect(taken).toMatchObject({ status: 'processing', attempts: 2 });
      expect(await completeAs(2, taken!.claimedAt, '"second"')).toBe(true);
      await advance(1_000);
      await store.purge({ now: now(), olderThanMs: 0 });
      expect(await store.find(k, { now: now() })).toBeNull();
      // A store-clocked harness fakes time by shifting stored rows, not the database clock: let a
      // real millisecond pass, as the stale threshold always has between two real claims.
      await new Promise((resolve) => setTimeout(resolve, 5));
      // A redelivery claims anew: the fencing token restarts at 1.
      const fresh = await store.claim(k, { now: now(), fingerprint: null });
      expect(fresh).toMatchObject({ won: true, receipt: { status: 'processing', attempts: 1 } });
      expect(fresh.receipt.claimedAt.getTime()).not.toBe(firstClaimedAt.getTime());

      // The first owner wakes up with the token (attempts 1) and the claim time it got back.
      expect(await completeAs(1, firstClaimedAt, '"zombie"')).toBe(false);
      expect(await failAs(1, firstClaimedAt)).toBe(false);
      await expectReceipt(store, now, k, {
        status: 'processing',
        attempts: 1,
        response: null,
        error: null,
      });
      // The new owner's claim stands, and its result is the one recorded.
      expect(await completeAs(1, fresh.receipt.claimedAt, '"fresh"')).toBe(true);
      expect(await completeAs(1, firstClaimedAt, '"zombie"')).toBe(false);
      await expectReceipt(store, now, k, { status: 'completed', attempts: 1, response: '"fresh"' });
    },
  },
];
