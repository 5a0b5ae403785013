/** @module Inbox-store cases: purging finished deliveries, never an unfinished one. */
import { leaseAll, delivery, leaseOne } from './fixtures';
import type { InboxConformanceCase } from './types';

export const purgeCases: InboxConformanceCase[] = [
  {
    group: 'purge',
    name: 'purge deletes finished deliveries past the retention, in chunks, never a pending or processing one',
    async run({ inbox, wait }) {
      for (const id of ['done1', 'done2', 'done3', 'dead', 'leased', 'pending'])
        await inbox.enqueue(delivery(id));
      const leased = await leaseAll(inbox, 5);
      for (const d of leased.slice(0, 3)) await inbox.complete(d);
      await inbox.bury(leased[3]!, { error: 'x' });
      expect(await inbox.purge({ olderThanMs: 60_000 })).toBe(0);
      await wait(20);
      expect(await inbox.purge({ olderThanMs: 0, chunkSize: 2 })).toBe(4);
      expect((await inbox.list()).map((d) => [d.externalId, d.status])).toEqual([
        ['leased', 'processing'],
        ['pending', 'pending'],
      ]);
      await expect(inbox.purge({ olderThanMs: -1 })).rejects.toMatchObject({
        option: 'olderThanMs',
      });
    },
  },
  {
    group: 'purge',
    name: 'purge takes batchSize, the deprecated name of chunkSize, and refuses the two disagreeing',
    async run({ inbox, wait }) {
      for (const id of ['done1', 'done2', 'done3']) await inbox.enqueue(delivery(id));
      for (const d of await leaseAll(inbox, 3)) await inbox.complete(d);
      await wait(20);
      await expect(inbox.purge({ olderThanMs: 0, batchSize: 0 })).rejects.toMatchObject({
        option: 'chunkSize',
      });
      await expect(
        inbox.purge({ olderThanMs: 0, chunkSize: 2, batchSize: 3 }),
      ).rejects.toMatchObject({ option: 'chunkSize' });
      expect(await inbox.list()).toHaveLength(3);
      expect(await inbox.purge({ olderThanMs: 0, batchSize: 2 })).toBe(3);
      expect(await inbox.list()).toEqual([]);
    },
  },
  {
    group: 'purge',
    name: 'a purged key can be stored again, as a new delivery',
    async run({ inbox }) {
      const first = await leaseOne(inbox, 'evt_1');
      await inbox.complete(first);
      expect(await inbox.purge({ olderThanMs: 0 })).toBe(1);
      expect(await inbox.find('stripe', 'evt_1')).toBeNull();
      expect(await inbox.enqueue(delivery('evt_1'))).toBe(true);
      const [again] = await leaseAll(inbox);
      expect(again).toMatchObject({ externalId: 'evt_1', leases: 1, failures: 0 });
      expect(again!.id).toBeGreaterThan(first.id);
      // The old lease is not the new delivery's.
      expect(await inbox.complete(first)).toBe(false);
    },
  },
];
