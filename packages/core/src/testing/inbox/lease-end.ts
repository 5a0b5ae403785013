/** @module Inbox-store cases: ending a lease (complete, retry, give back, extend, bury), each fenced by it. */
import { type Delivery, DeliveryStatus } from '../../inbox/types';
import { leaseAll, delivery, LEASE, leaseOne } from './fixtures';
import type { InboxConformanceCase } from './types';

export const leaseEndCases: InboxConformanceCase[] = [
  {
    group: 'lease end',
    name: 'complete is fenced by the lease: done once, then never leased again',
    async run({ inbox }) {
      const leased = await leaseOne(inbox, 'evt_1');
      expect(await inbox.complete({ id: leased.id, leases: leased.leases + 1 })).toBe(false);
      expect(await inbox.complete(leased)).toBe(true);
      expect(await inbox.complete(leased)).toBe(false);
      const stored = await inbox.find('stripe', 'evt_1');
      expect(stored!.status).toBe(DeliveryStatus.DONE);
      expect(stored!.finishedAt).not.toBeNull();
      expect(await leaseAll(inbox)).toEqual([]);
    },
  },
  {
    group: 'lease end',
    name: 'retry counts a failure and giveBack does not: the last error and failures stay',
    async run({ inbox, now }) {
      const first = await leaseOne(inbox, 'evt_1');
      expect(await inbox.retry(first, { delayMs: 60_000, error: 'boom \u0000 1' })).toBe(true);
      expect(await leaseAll(inbox)).toEqual([]);
      let stored = await inbox.find('stripe', 'evt_1');
      expect(stored).toMatchObject({ status: DeliveryStatus.PENDING, lastError: 'boom \uFFFD 1' });
      expect(stored!.availableAt.getTime() - now()).toBeGreaterThan(50_000);

      const second = await leaseOne(inbox, 'evt_2');
      expect(second.externalId).toBe('evt_2');
      expect(await inbox.retry(second, { delayMs: 0, error: 'first failure' })).toBe(true);
      const [again] = await leaseAll(inbox);
      expect(again).toMatchObject({ externalId: 'evt_2', leases: 2, failures: 1 });
      expect(await inbox.giveBack!(again!, { delayMs: 0 })).toBe(true);
      stored = await inbox.find('stripe', 'evt_2');
      expect(stored).toMatchObject({
        status: DeliveryStatus.PENDING,
        lastError: 'first failure',
        // A give-back is not a failure: only the failed attempt counts.
        leases: 2,
        failures: 1,
      });
      const [third] = await leaseAll(inbox);
      expect(third).toMatchObject({ leases: 3, failures: 1 });
      expect(await inbox.bury(third!, { error: 'gave up' })).toBe(true);
      expect(await inbox.find('stripe', 'evt_2')).toMatchObject({ status: 'dead', failures: 2 });
    },
  },
  {
    group: 'lease end',
    name: 'giveBack is fenced by the lease and due after its delay',
    async run({ inbox, now }) {
      const leased = await leaseOne(inbox, 'evt_1');
      expect(await inbox.giveBack!({ id: leased.id, leases: 9 }, { delayMs: 0 })).toBe(false);
      expect(await inbox.giveBack!(leased, { delayMs: 60_000 })).toBe(true);
      expect(await inbox.giveBack!(leased, { delayMs: 0 })).toBe(false);
      expect(await leaseAll(inbox)).toEqual([]);
      const stored = await inbox.find('stripe', 'evt_1');
      expect(stored).toMatchObject({
        status: 'pending',
        leases: 1,
        failures: 0,
        lastError: null,
      });
      expect(stored!.availableAt.getTime() - now()).toBeGreaterThan(50_000);
    },
  },
  {
    group: 'lease end',
    name: 'retry with error null, the form before giveBack, still gives back without a failure',
    async run({ inbox }) {
      const first = await leaseOne(inbox, 'evt_1');
      expect(await inbox.retry(first, { delayMs: 0, error: 'counted' })).toBe(true);
      const [again] = await leaseAll(inbox);
      expect(await inbox.retry({ id: again!.id, leases: 1 }, { delayMs: 0, error: null })).toBe(
        false,
      );
      expect(await inbox.retry(again!, { delayMs: 0, error: null })).toBe(true);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: 'pending',
        leases: 2,
        failures: 1,
        lastError: 'counted',
      });
    },
  },
  {
    group: 'lease end',
    name: 'a retried delivery is due again once its delay has passed, not before',
    async run({ inbox, wait }) {
      await inbox.enqueue(delivery('evt_1'));
      await inbox.enqueue(delivery('evt_2'));
      const [one, two] = await leaseAll(inbox, 2);
      expect(await inbox.retry(one!, { delayMs: LEASE, error: 'later' })).toBe(true);
      expect(await inbox.retry(two!, { delayMs: 50, error: 'soon' })).toBe(true);
      await wait(150);
      const again = await leaseAll(inbox);
      expect(again.map((d) => [d.externalId, d.leases, d.failures])).toEqual([['evt_2', 2, 1]]);
    },
  },
  {
    group: 'lease end',
    name: 'extend keeps the leases still held for longer and leaves lost ones alone',
    async run({ inbox, now, wait }) {
      await inbox.enqueue(delivery('evt_1'));
      await inbox.enqueue(delivery('evt_2'));
      await inbox.enqueue(delivery('evt_3'));
      const leased = await inbox.lease({ providers: ['stripe'], limit: 3, leaseMs: 50 });
      expect(leased).toHaveLength(3);
      const [one, two, three] = leased as [Delivery, Delivery, Delivery];
      // evt_3's lease is no longer held: it was ended.
      expect(await inbox.complete(three)).toBe(true);
      expect(
        await inbox.extend([one, two, three, { id: one.id, leases: 9 }], { leaseMs: LEASE }),
      ).toBe(2);
      expect(await inbox.extend([], { leaseMs: LEASE })).toBe(0);
      await wait(120);
      // The short lease has passed, the extended one has not: nothing is taken over.
      expect(await leaseAll(inbox)).toEqual([]);
      const stored = await inbox.find('stripe', 'evt_1');
      expect(stored).toMatchObject({ status: 'processing', leases: 1 });
      expect(stored!.availableAt.getTime() - now()).toBeGreaterThan(50_000);
      expect(await inbox.complete(two)).toBe(true);
    },
  },
  {
    group: 'lease end',
    name: 'bury marks it dead with the error: listed, never leased again',
    async run({ inbox }) {
      await inbox.enqueue(delivery('evt_1'));
      await inbox.enqueue(delivery('evt_2'));
      const [leased] = await leaseAll(inbox, 1);
      expect(await inbox.bury(leased!, { error: 'gave up' })).toBe(true);
      const dead = await inbox.list({ status: DeliveryStatus.DEAD });
      expect(dead.map((d) => [d.externalId, d.lastError])).toEqual([['evt_1', 'gave up']]);
      expect(dead[0]!.finishedAt).not.toBeNull();
      expect((await leaseAll(inbox)).map((d) => d.externalId)).toEqual(['evt_2']);
      expect(await leaseAll(inbox)).toEqual([]);
    },
  },
];
