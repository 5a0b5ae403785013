/** @module Conformance cases: races between callers (run with many parallel calls). */
import { claimed, expectReceipt, STALE_MS, takeOver } from './fixtures';
import type { ConformanceCase } from './types';

const times = <T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

export const concurrencyCases: ConformanceCase[] = [
  {
    group: 'concurrency',
    name: 'N parallel claims on one key: exactly one wins, every loser sees attempts 1',
    async run({ store, now, key, concurrency }) {
      const k = key('race');
      const results = await times(concurrency, (i) =>
        store.claim(k, { now: now(), fingerprint: `fp-${i}` }),
      );
      const winners = results.filter((r) => r.won);
      expect(winners).toHaveLength(1);
      for (const r of results) expect(r.receipt.attempts).toBe(1);
      // Every loser saw the winner's row, not a half-written one.
      const winnerFp = winners[0]!.receipt.fingerprint;
      for (const r of results) expect(r.receipt.fingerprint).toBe(winnerFp);
    },
  },
  {
    group: 'concurrency',
    name: 'N parallel claims on N keys: every one wins',
    async run({ store, now, key, concurrency }) {
      const results = await times(concurrency, (i) =>
        store.claim(key(`many-${i}`), { now: now(), fingerprint: null }),
      );
      expect(results.filter((r) => r.won)).toHaveLength(concurrency);
    },
  },
  {
    group: 'concurrency',
    name: 'N parallel take-overs of one stale claim: exactly one wins',
    async run({ store, now, key, advance, concurrency }) {
      const k = await claimed(store, now, key('stale-race'));
      await advance(STALE_MS + 5_000);
      const results = await times(concurrency, () => takeOver(store, now, k, 1));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      await expectReceipt(store, now, k, { status: 'processing', attempts: 2 });
    },
  },
  {
    group: 'concurrency',
    name: 'N parallel retries of one failed receipt: exactly one wins',
    async run({ store, now, key, concurrency }) {
      const k = await claimed(store, now, key('failed-race'));
      await store.fail(k, { now: now(), attempts: 1, error: 'boom' });
      const results = await times(concurrency, () => takeOver(store, now, k, 1));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    },
  },
  {
    group: 'concurrency',
    name: 'N parallel completes with the same attempts: exactly one is recorded',
    async run({ store, now, key, concurrency }) {
      const k = await claimed(store, now, key('complete-race'));
      const results = await times(concurrency, (i) =>
        store.complete(k, { now: now(), attempts: 1, response: String(i) }),
      );
      const recorded = results.flatMap((ok, i) => (ok ? [String(i)] : []));
      expect(recorded).toHaveLength(1);
      await expectReceipt(store, now, k, { status: 'completed', response: recorded[0] });
    },
  },
  {
    group: 'concurrency',
    name: 'a late complete racing a take-over: never both recorded',
    async run({ store, now, key, advance, concurrency }) {
      const k = await claimed(store, now, key('complete-vs-takeover'));
      await advance(STALE_MS + 5_000);
      const half = Math.max(1, Math.floor(concurrency / 2));
      const [completes, takeovers] = await Promise.all([
        times(half, () => store.complete(k, { now: now(), attempts: 1, response: '"zombie"' })),
        times(half, () => takeOver(store, now, k, 1)),
      ]);
      const completed = completes.filter(Boolean).length;
      const taken = takeovers.filter((r) => r !== null).length;
      expect(completed + taken).toBe(1);
      const found = await store.find(k, { now: now() });
      if (completed === 1)
        expect(found).toMatchObject({ status: 'completed', attempts: 1, response: '"zombie"' });
      else expect(found).toMatchObject({ status: 'processing', attempts: 2, response: null });
    },
  },
];
