/** @module Conformance cases: failing a claim and retrying after a failure. */
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
      expect(found).toMatchObject({ status: 'failed', attempts: 1, error: 'Error: boom', response: null, fingerprint: 'f' });
      expect(found?.finishedAt).toBeInstanceOf(Date);
    },
  },
  {
    group: 'fail',
    name: 'a failed receipt is reclaimed at once with attempts + 1 and can complete',
    async run({ store, now, key }) {
      const k = key('retry');
      await store.claim(k, { now: now(), fingerprint: null });
      await store.fail(k, { now: now(), attempts: 1, error: 'boom' });
      const taken = await store.reclaim(k, { now: now(), attempts: 1, staleAfterMs: 3_600_000 });
      expect(taken).toMatchObject({ status: 'processing', attempts: 2, error: null, finishedAt: null });
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"old"' })).toBe(false);
      expect(await store.complete(k, { now: now(), attempts: 2, response: '"new"' })).toBe(true);
      expect(await store.find(k, { now: now() })).toMatchObject({ status: 'completed', attempts: 2, response: '"new"' });
    },
  },
  {
    group: 'fail',
    name: 'fail with other attempts is refused',
    async run({ store, now, key }) {
      const k = key('fail-wrong');
      await store.claim(k, { now: now(), fingerprint: null });
      expect(await store.fail(k, { now: now(), attempts: 2, error: 'x' })).toBe(false);
      expect(await store.find(k, { now: now() })).toMatchObject({ status: 'processing', error: null });
    },
  },
  {
    group: 'fail',
    name: 'reclaiming a failed receipt needs the attempts seen',
    async run({ store, now, key }) {
      const k = key('fail-seen');
      await store.claim(k, { now: now(), fingerprint: null });
      await store.fail(k, { now: now(), attempts: 1, error: 'x' });
      expect(await store.reclaim(k, { now: now(), attempts: 2, staleAfterMs: 1000 })).toBeNull();
      expect(await store.find(k, { now: now() })).toMatchObject({ status: 'failed', attempts: 1 });
    },
  },
];
