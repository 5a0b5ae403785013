/** @module Conformance cases: failing a claim and retrying after a failure. */
import { claimed, expectFencedByClaimedAt, expectReceipt } from './fixtures';
import type { ConformanceCase } from './types';

export const failCases: ConformanceCase[] = [
  {
    group: 'fail',
    name: 'fail stores the error and finishedAt, keeps attempts',
    async run({ store, now, key }) {
      const k = key('fail');
      await store.claim(k, { now: now(), fingerprint: 'f' });
      expect(await store.fail(k, { now: now(), attempts: 1, error: 'Error: boom' })).toBe(true);
      const found = await store.find(k, { now: now() });
      expect(found).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: 'Error: boom',
        response: null,
        fingerprint: 'f',
      });
      expect(found?.finishedAt).toBeInstanceOf(Date);
    },
  },
  {
    group: 'fail',
    name: 'a failed receipt is reclaimed at once with attempts + 1 and can complete',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('retry'));
      await store.fail(k, { now: now(), attempts: 1, error: 'boom' });
      const taken = await store.reclaim(k, { now: now(), attempts: 1, staleAfterMs: 3_600_000 });
      expect(taken).toMatchObject({
        status: 'processing',
        attempts: 2,
        error: null,
        finishedAt: null,
      });
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"old"' })).toBe(false);
      expect(await store.complete(k, { now: now(), attempts: 2, response: '"new"' })).toBe(true);
      await expectReceipt(store, now, k, { status: 'completed', attempts: 2, response: '"new"' });
    },
  },
  {
    group: 'fail',
    name: 'fail with the claimedAt the claim or reclaim returned succeeds; a claimedAt 1 ms off is refused',
    async run({ store, now, key }) {
      const k = key('fail-claimed-at');
      const { receipt } = await store.claim(k, { now: now(), fingerprint: null });
      // The fenced fail of the owner of `attempts`, as that owner would send it.
      const failAs = (attempts: number, error: string) => (claimedAt: Date) =>
        store.fail(k, { now: now(), attempts, claimedAt, error });
      const unchanged = { status: 'processing', error: null } as const;
      const first = { claimedAt: receipt.claimedAt, offsetsMs: [1] };
      await expectFencedByClaimedAt(store, now, k, first, failAs(1, 'first'), unchanged);
      // The claim time a reclaim returns identifies the new claim the same way.
      const taken = await store.reclaim(k, { now: now(), attempts: 1, staleAfterMs: 3_600_000 });
      expect(taken).toMatchObject({ status: 'processing', attempts: 2 });
      const second = { claimedAt: taken!.claimedAt, offsetsMs: [-1] };
      await expectFencedByClaimedAt(store, now, k, second, failAs(2, 'second'), {
        status: 'processing',
        attempts: 2,
      });
      await expectReceipt(store, now, k, { status: 'failed', attempts: 2, error: 'second' });
    },
  },
  {
    group: 'fail',
    name: 'reclaiming with a fingerprint records it; without the field the stored one stays',
    async run({ store, now, key }) {
      const k = key('reclaim-fingerprint');
      const retry = async (attempts: number, fingerprint?: string | null) => {
        expect(await store.fail(k, { now: now(), attempts, error: 'boom' })).toBe(true);
        const input = { now: now(), attempts, staleAfterMs: 3_600_000 };
        return store.reclaim(k, fingerprint === undefined ? input : { ...input, fingerprint });
      };
      await store.claim(k, { now: now(), fingerprint: 'forged' });
      // A failed attempt's fingerprint is replaced by the new delivery's: the request that runs now
      // is the one a duplicate is compared with.
      expect(await retry(1, 'genuine')).toMatchObject({
        status: 'processing',
        attempts: 2,
        fingerprint: 'genuine',
      });
      await expectReceipt(store, now, k, { attempts: 2, fingerprint: 'genuine' });
      // No field: the stored fingerprint stays.
      expect(await retry(2)).toMatchObject({ attempts: 3, fingerprint: 'genuine' });
      await expectReceipt(store, now, k, { attempts: 3, fingerprint: 'genuine' });
      // null is a value: a delivery without a fingerprint records none.
      expect(await retry(3, null)).toMatchObject({ attempts: 4, fingerprint: null });
      await expectReceipt(store, now, k, { attempts: 4, fingerprint: null });
      // A refused reclaim records nothing.
      expect(
        await store.reclaim(k, {
          now: now(),
          attempts: 4,
          staleAfterMs: 3_600_000,
          fingerprint: 'other',
        }),
      ).toBeNull();
      await expectReceipt(store, now, k, { status: 'processing', attempts: 4, fingerprint: null });
    },
  },
  {
    group: 'fail',
    name: 'fail with other attempts is refused',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('fail-wrong'));
      expect(await store.fail(k, { now: now(), attempts: 2, error: 'x' })).toBe(false);
      await expectReceipt(store, now, k, { status: 'processing', error: null });
    },
  },
  {
    group: 'fail',
    name: 'reclaiming a failed receipt needs the attempts seen',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('fail-seen'));
      await store.fail(k, { now: now(), attempts: 1, error: 'x' });
      expect(await store.reclaim(k, { now: now(), attempts: 2, staleAfterMs: 1000 })).toBeNull();
      await expectReceipt(store, now, k, { status: 'failed', attempts: 1 });
    },
  },
];
