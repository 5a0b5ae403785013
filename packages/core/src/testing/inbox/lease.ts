/** @module Inbox-store cases: `lease` leases due deliveries oldest first, never one twice; expired leases are taken over. */
import { DeliveryStatus } from '../../inbox/types';
import { BODY, leaseAll, delivery, LEASE } from './fixtures';
import type { InboxConformanceCase } from './types';

export const leaseCases: InboxConformanceCase[] = [
  {
    group: 'lease',
    name: 'leases due deliveries oldest first (lease 1) and never hands one out twice',
    async run({ inbox }) {
      for (const id of ['a', 'b', 'c', 'd', 'e']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('g1', { provider: 'github' }));
      const [first, second] = await Promise.all([leaseAll(inbox, 2), leaseAll(inbox, 2)]);
      const leased = [...first!, ...second!];
      expect(leased.map((d) => d.externalId).sort()).toEqual(['a', 'b', 'c', 'd']);
      expect(leased.every((d) => d.leases === 1)).toBe(true);
      expect(Buffer.compare(leased[0]!.body, BODY)).toBe(0);
      const rest = await leaseAll(inbox);
      expect(rest.map((d) => d.externalId)).toEqual(['e']);
      expect(await leaseAll(inbox)).toEqual([]);
      expect((await inbox.find('stripe', 'a'))!.status).toBe(DeliveryStatus.PROCESSING);
      // Only the providers asked for.
      expect((await leaseAll(inbox, 10, ['github'])).map((d) => d.externalId)).toEqual(['g1']);
      expect(await inbox.lease({ providers: [], limit: 10, leaseMs: LEASE })).toEqual([]);
    },
  },
  {
    group: 'lease',
    name: '50 concurrent lease calls for 40 deliveries: each leased exactly once',
    async run({ inbox }) {
      for (let i = 0; i < 40; i++) await inbox.enqueue(delivery(`evt_${i}`));
      const batches = await Promise.all(Array.from({ length: 50 }, () => leaseAll(inbox, 3)));
      const ids = batches.flat().map((d) => d.externalId);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    },
  },
  {
    group: 'lease',
    name: 'an expired lease is taken over (lease 2) and the first holder can no longer end it',
    async run({ inbox, wait }) {
      await inbox.enqueue(delivery('evt_1'));
      // Long while nothing may be taken over, however slow the machine; then cut to 50 ms.
      const [old] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
      expect(await leaseAll(inbox)).toEqual([]);
      expect(await inbox.extend([old!], { leaseMs: 50 })).toBe(1);
      await wait(120);
      const [taken] = await leaseAll(inbox);
      // Its worker presumably died: that counts as a failure, recorded as such.
      expect(taken).toMatchObject({ externalId: 'evt_1', leases: 2, failures: 1, id: old!.id });
      expect((await inbox.find('stripe', 'evt_1'))!.lastError).toMatch(/^LeaseExpired: /);
      expect(await inbox.complete(old!)).toBe(false);
      expect(await inbox.retry(old!, { delayMs: 0, error: 'late' })).toBe(false);
      expect(await inbox.bury(old!, { error: 'late' })).toBe(false);
      expect(await inbox.complete(taken!)).toBe(true);
    },
  },
  {
    group: 'lease',
    name: "a lease that ran out but was not taken over is still its holder's to end",
    async run({ inbox, wait }) {
      await inbox.enqueue(delivery('evt_1'));
      await inbox.enqueue(delivery('evt_2'));
      const [one, two] = await inbox.lease({ providers: ['stripe'], limit: 2, leaseMs: 50 });
      await wait(120);
      // The fence is the lease count, not its expiry: nobody else holds these yet.
      expect(await inbox.complete(one!)).toBe(true);
      expect(await inbox.giveBack!(two!, { delayMs: 0 })).toBe(true);
      expect(await inbox.find('stripe', 'evt_2')).toMatchObject({
        status: DeliveryStatus.PENDING,
        leases: 1,
        failures: 0,
        lastError: null,
      });
    },
  },
];
