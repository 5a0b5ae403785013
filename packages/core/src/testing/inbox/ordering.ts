/** @module Inbox-store cases: an ordering group is leased one delivery at a time, in receipt order. */
import { DeliveryStatus } from '../../inbox/types';
import { leaseAll, delivery } from './fixtures';
import type { InboxStore } from '../../inbox/inbox-store';
import type { InboxConformanceCase } from './types';

/** Stores the deliveries `ids` of one ordering group (`orderingKey`), in that receipt order. */
async function enqueueGroup(inbox: InboxStore, orderingKey: string, ids: readonly string[]) {
  for (const id of ids) await inbox.enqueue(delivery(id, { orderingKey }));
}

export const orderingCases: InboxConformanceCase[] = [
  {
    group: 'ordering',
    name: 'an ordering group is processed one at a time, in receipt order; a dead head lets the next one go',
    async run({ inbox }) {
      await enqueueGroup(inbox, 'cus_1', ['o1', 'o2']);
      await inbox.enqueue(delivery('free'));
      await enqueueGroup(inbox, 'cus_1', ['o3']);
      await inbox.enqueue(delivery('other', { orderingKey: 'cus_2' }));
      // The same ordering key at another provider is another group.
      await inbox.enqueue(delivery('gh', { provider: 'github', orderingKey: 'cus_1' }));
      const first = await leaseAll(inbox, 10, ['stripe', 'github']);
      expect(first.map((d) => d.externalId)).toEqual(['o1', 'free', 'other', 'gh']);
      expect(first[0]!.orderingKey).toBe('cus_1');
      expect(await leaseAll(inbox)).toEqual([]);
      // A retry keeps the head in place: o2 still waits.
      expect(await inbox.retry(first[0]!, { delayMs: 60_000, error: 'later' })).toBe(true);
      expect(await leaseAll(inbox)).toEqual([]);
      const o1 = (await inbox.find('stripe', 'o1'))!;
      expect(o1.status).toBe(DeliveryStatus.PENDING);

      await enqueueGroup(inbox, 'cus_3', ['o4', 'o5']);
      const [o4] = await leaseAll(inbox);
      expect(o4!.externalId).toBe('o4');
      expect(await inbox.complete(o4!)).toBe(true);
      const [o5] = await leaseAll(inbox);
      expect(o5!.externalId).toBe('o5');
      expect(await inbox.bury(o5!, { error: 'x' })).toBe(true);

      await enqueueGroup(inbox, 'cus_4', ['p1', 'p2']);
      const [p1] = await leaseAll(inbox);
      expect(await inbox.bury(p1!, { error: 'poison' })).toBe(true);
      expect((await leaseAll(inbox)).map((d) => d.externalId)).toEqual(['p2']);
    },
  },
  {
    group: 'ordering',
    name: 'a redelivered head goes back in front of its group: the next one waits for it again',
    async run({ inbox }) {
      await enqueueGroup(inbox, 'cus_1', ['o1', 'o2']);
      const [o1] = await leaseAll(inbox);
      expect(await inbox.bury(o1!, { error: 'poison' })).toBe(true);
      expect(
        await inbox.redeliver('stripe', 'o1', { status: DeliveryStatus.DEAD, leases: 1 }),
      ).toBe(true);
      // o2 was never leased: the redelivered o1, older, is the group's head again.
      expect((await leaseAll(inbox)).map((d) => d.externalId)).toEqual(['o1']);
    },
  },
];
