/** @module Conformance cases for transactional stores (capabilities.transactional). */
import type { ConformanceCase } from './types';

export const transactionCases: ConformanceCase[] = [
  {
    group: 'transaction',
    name: 'complete inside a committed transaction is recorded',
    async run({ store, now, key }) {
      const k = key('tx-commit');
      await store.claim(k, { now: now(), fingerprint: null });
      const result = await store.withTransaction!(async (tx) => {
        expect(await store.complete(k, { now: now(), attempts: 1, response: '"in-tx"' }, tx)).toBe(
          true,
        );
        return 'done';
      });
      expect(result).toBe('done');
      expect(await store.find(k, { now: now() })).toMatchObject({
        status: 'completed',
        response: '"in-tx"',
      });
    },
  },
  {
    group: 'transaction',
    name: 'complete inside a rolled-back transaction leaves the claim processing and completable',
    async run({ store, now, key }) {
      const k = key('tx-rollback');
      await store.claim(k, { now: now(), fingerprint: null });
      const boom = new Error('business write failed');
      await expect(
        store.withTransaction!(async (tx) => {
          await store.complete(k, { now: now(), attempts: 1, response: '"lost"' }, tx);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.find(k, { now: now() })).toMatchObject({
        status: 'processing',
        response: null,
        attempts: 1,
      });
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"kept"' })).toBe(true);
    },
  },
  {
    group: 'transaction',
    name: 'a fenced complete inside a transaction is refused like outside one',
    async run({ store, now, key }) {
      const k = key('tx-fence');
      await store.claim(k, { now: now(), fingerprint: null });
      const ok = await store.withTransaction!((tx) =>
        store.complete(k, { now: now(), attempts: 7, response: '"x"' }, tx),
      );
      expect(ok).toBe(false);
    },
  },
];
