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

/** `count` receipts of `label`, completed now and then left two days old: what a one-day purge takes. */
async function twoDaysOld(context: CaseContext<unknown>, label: string, count: number) {
  const keys = Array.from({ length: count }, (_, i) => context.key(`${label}-${i}`));
  for (const k of keys) await completed(context.store, context.now, k, 'null');
  await context.advance(2 * DAY);
  return keys;
}

/** Expects every one of `keys` to be gone (`gone`) or still there. */
async function expectGone(
  { store, now }: CaseContext<unknown>,
  keys: readonly KeyLike[],
  gone: boolean,
): Promise<void> {
  for (const k of keys) {
    const found = await store.find(k, { now: now() });
    if (gone) expect(found).toBeNull();
    else expect(found).not.toBeNull();
  }
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
    async run(context) {
      const { store, now } = context;
      const keys = await twoDaysOld(context, 'chunk', 25);
      expect(await store.purge({ now: now(), olderThanMs: DAY, chunkSize: 10 })).toBe(25);
      await expectGone(context, keys, true);
    },
  },
  {
    group: 'purge',
    name: 'takes batchSize, the deprecated name of chunkSize, and refuses the two disagreeing',
    async run(context) {
      const { store, now } = context;
      const keys = await twoDaysOld(context, 'alias', 3);
      await expect(
        store.purge({ now: now(), olderThanMs: DAY, chunkSize: 2, batchSize: 3 }),
      ).rejects.toMatchObject({ name: 'ConfigError', option: 'chunkSize' });
      await expectGone(context, keys, false);
      expect(await store.purge({ now: now(), olderThanMs: DAY, batchSize: 2 })).toBe(3);
      await expectGone(context, keys, true);
    },
  },
];
