/** @module Conformance cases: completing a claim. */
import { claimed, expectFencedByClaimedAt, expectReceipt } from './fixtures';
import type { ConformanceCase } from './types';

const awkward = 'naïve "quotes" \\ back\nslash \u0001 😀 ' + "' OR 1=1; --";

export const completeCases: ConformanceCase[] = [
  {
    group: 'complete',
    name: 'complete with the claimed attempts stores the response byte for byte',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('complete'));
      expect(await store.complete(k, { now: now(), attempts: 1, response: awkward })).toBe(true);
      const found = await store.find(k, { now: now() });
      expect(found).toMatchObject({
        status: 'completed',
        attempts: 1,
        response: awkward,
        error: null,
      });
      expect(found?.finishedAt).toBeInstanceOf(Date);
    },
  },
  {
    group: 'complete',
    name: 'a 1 MiB response (or the longest the store declares) round-trips; one byte over a declared limit is refused',
    async run({ store, now, key }) {
      const k = key('big');
      const limit = store.capabilities.maxResponseBytes;
      const size = Math.min(1024 * 1024, limit ?? Number.POSITIVE_INFINITY);
      const response = `${'x'.repeat(size - 3)}end`;
      await store.claim(k, { now: now(), fingerprint: null });
      if (limit !== undefined) {
        const over = await claimed(store, now, key('over'));
        await expect(
          store.complete(over, { now: now(), attempts: 1, response: `${response}x` }),
        ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE' });
        expect(await store.find(over, { now: now() })).not.toMatchObject({ status: 'completed' });
      }
      expect(await store.complete(k, { now: now(), attempts: 1, response })).toBe(true);
      const found = await store.find(k, { now: now() });
      expect(found?.response?.length).toBe(response.length);
      expect(found?.response === response).toBe(true);
    },
  },
  {
    group: 'complete',
    name: 'complete with the claimedAt the claim returned succeeds; a claimedAt 1 ms off is refused',
    async run({ store, now, key }) {
      const k = key('complete-claimed-at');
      const { receipt } = await store.claim(k, { now: now(), fingerprint: null });
      const complete = (claimedAt: Date) =>
        store.complete(k, { now: now(), attempts: 1, claimedAt, response: '"owner"' });
      const fence = { claimedAt: receipt.claimedAt, offsetsMs: [-1, 1] };
      const unchanged = { status: 'processing', response: null } as const;
      await expectFencedByClaimedAt(store, now, k, fence, complete, unchanged);
      await expectReceipt(store, now, k, { status: 'completed', response: '"owner"' });
    },
  },
  {
    group: 'complete',
    name: 'complete with other attempts is refused and changes nothing',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('wrong-attempts'));
      expect(await store.complete(k, { now: now(), attempts: 2, response: '"x"' })).toBe(false);
      expect(await store.complete(k, { now: now(), attempts: 0, response: '"x"' })).toBe(false);
      await expectReceipt(store, now, k, { status: 'processing', response: null });
    },
  },
  {
    group: 'complete',
    name: 'completed is final: later completes and fails are refused',
    async run({ store, now, key, advance }) {
      const k = await claimed(store, now, key('final'));
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"first"' })).toBe(true);
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"second"' })).toBe(
        false,
      );
      expect(await store.fail(k, { now: now(), attempts: 1, error: 'late' })).toBe(false);
      await advance(400 * 24 * 3600 * 1000);
      expect(await store.reclaim(k, { now: now(), attempts: 1, staleAfterMs: 1000 })).toBeNull();
      expect((await store.claim(k, { now: now(), fingerprint: null })).won).toBe(false);
      await expectReceipt(store, now, k, { status: 'completed', response: '"first"', attempts: 1 });
    },
  },
  {
    group: 'complete',
    name: 'complete and fail on an unknown key are refused',
    async run({ store, now, key }) {
      const k = key('missing');
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"x"' })).toBe(false);
      expect(await store.fail(k, { now: now(), attempts: 1, error: 'x' })).toBe(false);
      expect(await store.find(k, { now: now() })).toBeNull();
    },
  },
];
