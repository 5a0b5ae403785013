/** @module Conformance cases: purging old receipts. */
import type { KeyLike } from '../request-key';
import { claimed, completed, expectReceipt } from './fixtures';
import type { CaseContext, ConformanceCase } from './types';

const DAY = 24 * 3600 * 1000;

/** Three receipts of `label` made now: one completed, one failed and one still processing. */
async function threeStates(
  { store, now, key }: Pick<CaseContext<unknown>, 'store' | 'now' | 'key'>,
  label: string,
) {
  const [done, failed, running] = ['done', 'failed', 'processing'].map((state) =>
    key(`${label}-${state}`),
  ) as [KeyLike, KeyLike, KeyLike];
  for (const k of [done, failed, running]) await claimed(store, now, k);
  await store.complete(done, { now: now(), attempts: 1, response: '1' });
  await store.fail(failed, { now: now(), attempts: 1, error: 'x' });
  return { done, failed, running };
}

export const purgeCases: ConformanceCase[] = [
  {
    group: 'purge',
    name: 'olderThanMs 0 deletes every finished receipt, one finished this very moment included, and no processing one',
    async run({ store, now, key }) {
      const { done, running } = await threeStates({ store, now, key }, 'zero');
      expect(await store.purge({ now: now(), olderThanMs: 0 })).toBe(2);
      expect(await store.find(done, { now: now() })).toBeNull();
      await expectReceipt(store, now, running, { status: 'processing' });
    },
  },
  {
    group: 'purge',
    name: 'deletes finished receipts older than the cut-off, keeps newer ones and every processing one',
    async run({ store, now, key, advance }) {
      const old = await threeStates({ store, now, key }, 'old');
      await advance(10 * DAY);
      const newDone = await completed(store, now, key('new-done'), '2');

      expect(await store.purge({ now: now(), olderThanMs: 7 * DAY })).toBe(2);
      expect(await store.find(old.done, { now: now() })).toBeNull();
      expect(await store.find(old.failed, { now: now() })).toBeNull();
      await expectReceipt(store, now, old.running, { status: 'processing' });
      await expectReceipt(store, now, newDone, { status: 'completed' });
      // Nothing left to delete: purge is repeatable.
      expect(await store.purge({ now: now(), olderThanMs: 7 * DAY })).toBe(0);
    },
  },
  {
    group: 'purge',
    name: "with a provider, deletes only that provider's old receipts",
    async run({ store, now, key, advance }) {
      const stripe = key('stripe-old', 'stripe');
      const payme = key('payme-old', 'payme');
      for (const k of [stripe, payme]) await completed(store, now, k, '1');
      await advance(40 * DAY);
      expect(await store.purge({ now: now(), olderThanMs: 30 * DAY, provider: 'stripe' })).toBe(1);
      expect(await store.find(stripe, { now: now() })).toBeNull();
      await expectReceipt(store, now, payme, { status: 'completed' });
      expect(await store.purge({ now: now(), olderThanMs: 30 * DAY, provider: 'nobody' })).toBe(0);
    },
  },
  {
    group: 'purge',
    name: 'deletes in chunks and counts every row',
    async run({ store, now, key, advance }) {
      const keys = Array.from({ length: 25 }, (_, i) => key(`chunk-${i}`));
      for (const k of keys) await completed(store, now, k, 'null');
      await advance(2 * DAY);
      expect(await store.purge({ now: now(), olderThanMs: DAY, chunkSize: 10 })).toBe(25);
      for (const k of keys) expect(await store.find(k, { now: now() })).toBeNull();
    },
  },
  {
    group: 'purge',
    name: 'takes batchSize, the deprecated name of chunkSize, and refuses the two disagreeing',
    async run({ store, now, key, advance }) {
      const keys = Array.from({ length: 3 }, (_, i) => key(`alias-${i}`));
      for (const k of keys) await completed(store, now, k, 'null');
      await advance(2 * DAY);
      await expect(
        store.purge({ now: now(), olderThanMs: DAY, chunkSize: 2, batchSize: 3 }),
      ).rejects.toMatchObject({ name: 'ConfigError', option: 'chunkSize' });
      for (const k of keys) expect(await store.find(k, { now: now() })).not.toBeNull();
      expect(await store.purge({ now: now(), olderThanMs: DAY, batchSize: 2 })).toBe(3);
      for (const k of keys) expect(await store.find(k, { now: now() })).toBeNull();
    },
  },
];
