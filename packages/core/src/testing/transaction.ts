/** @module Conformance cases for transactional stores (capabilities.transactional). */
import { claimed, expectReceipt } from './fixtures';
import type { ConformanceCase } from './types';

export const transactionCases: ConformanceCase[] = [
  {
    group: 'transaction',
    name: 'complete inside a committed transaction is recorded',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('tx-commit'));
      const result = await store.withTransaction!(async (tx) => {
        expect(await store.complete(k, { now: now(), attempts: 1, response: '"in-tx"' }, tx)).toBe(
          true,
        );
        return 'done';
      });
      expect(result).toBe('done');
      await expectReceipt(store, now, k, { status: 'completed', response: '"in-tx"' });
    },
  },
  {
    group: 'transaction',
    name: 'complete inside a rolled-back transaction leaves the claim processing and completable',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('tx-rollback'));
      const boom = new Error('business write failed');
      await expect(
        store.withTransaction!(async (tx) => {
          await store.complete(k, { now: now(), attempts: 1, response: '"lost"' }, tx);
          throw boom;
        }),
      ).rejects.toBe(boom);
      await expectReceipt(store, now, k, { status: 'processing', response: null, attempts: 1 });
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"kept"' })).toBe(true);
    },
  },
  {
    group: 'transaction',
    name: 'a fenced complete inside a transaction is refused like outside one',
    async run({ store, now, key }) {
      const k = await claimed(store, now, key('tx-fence'));
      const ok = await store.withTransaction!((tx) =>
        store.complete(k, { now: now(), attempts: 7, response: '"x"' }, tx),
      );
      expect(ok).toBe(false);
    },
  },
];
