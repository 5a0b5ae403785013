/**
 * @module Inbox-store cases: what a relay reads. `leaseRefs` leases as `lease` does but returns
 * references only (no body, no headers); `lapsed` finds the expired handoffs a relay asks its
 * queue about.
 */
import type { DeliveryLease, LeasedRef, NewDelivery } from '../../inbox/types';
import type { InboxConformanceCase } from './types';

/** A body worth not reading: 4 KiB. */
export const REF_BODY = Buffer.alloc(4096, 0x61);
// `attempts`: the lease count's deprecated name, carried beside `leases` for one minor version.
const REF_KEYS = ['attempts', 'externalId', 'failures', 'id', 'leases', 'provider'];
const ONE_LEASE = { leases: 1, attempts: 1 };

/** A Stripe delivery with {@link REF_BODY}. */
export const refDelivery = (externalId: string): NewDelivery => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: { 'content-type': 'application/json', 'x-note': 'hello' },
  body: REF_BODY,
});

export const relayCases: InboxConformanceCase[] = [
  {
    group: 'relay',
    name: 'leaseRefs leases like lease but returns only references: no body, no headers',
    async run({ inbox, wait }) {
      for (const id of ['a', 'b']) await inbox.enqueue(refDelivery(id));
      const refs = await inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
      expect(refs.map((r) => Object.keys(r).sort())).toEqual([REF_KEYS, REF_KEYS]);
      expect(refs).toEqual([
        { id: expect.any(Number), provider: 'stripe', externalId: 'a', ...ONE_LEASE, failures: 0 },
        { id: expect.any(Number), provider: 'stripe', externalId: 'b', ...ONE_LEASE, failures: 0 },
      ]);
      // Leased: nothing is due until the lease runs out; then a takeover counts a failure. (The
      // lease is long while nothing may be due, however slow the machine, then cut to 100 ms.)
      expect(await inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 200 })).toEqual([]);
      expect(await inbox.complete(refs[0]!)).toBe(true);
      expect(await inbox.extend([refs[1]!], { leaseMs: 100 })).toBe(1);
      await wait(300);
      const [again] = await inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
      expect(again).toMatchObject({ externalId: 'b', leases: 2, failures: 1 });
      expect(await inbox.find('stripe', 'b')).toMatchObject({ leases: 2, failures: 1 });
    },
  },
  {
    group: 'relay',
    name: 'lapsed lists the processing deliveries whose lease ran out, under the lease they hold, in id order after afterId',
    async run({ inbox, wait }) {
      for (const id of ['a', 'b', 'c', 'd']) await inbox.enqueue(refDelivery(id));
      const short = await inbox.leaseRefs({ providers: ['stripe'], limit: 3, leaseMs: 100 });
      await wait(200);
      // 'd' is pending (the next lease call's to take), not a lapsed handoff.
      const lapsed = await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 });
      expect(lapsed.map((r) => [r.externalId, r.leases, r.failures])).toEqual([
        ['a', 1, 0],
        ['b', 1, 0],
        ['c', 1, 0],
      ]);
      expect(lapsed.map((r) => Object.keys(r).sort())).toEqual([REF_KEYS, REF_KEYS, REF_KEYS]);
      expect(
        (await inbox.lapsed({ providers: ['stripe'], limit: 1, afterId: short[0]!.id })).map(
          (r) => r.externalId,
        ),
      ).toEqual(['b']);
      expect(await inbox.lapsed({ providers: ['github'], limit: 10, afterId: 0 })).toEqual([]);
      // Extended (the queue still has the job): no longer lapsed, and the lease call leaves it alone.
      expect(await inbox.extend([short[0]!], { leaseMs: 60_000 })).toBe(1);
      expect(
        (await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 })).map(
          (r) => r.externalId,
        ),
      ).toEqual(['b', 'c']);
      const leased = await inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
      expect(leased.map((r) => r.externalId)).toEqual(['b', 'c', 'd']);
    },
  },
  {
    group: 'relay',
    name: 'leaseRefs with takeOver: false leases pending deliveries only; with a list of leases it takes over only those, while still expired and held under them',
    async run({ inbox, wait }) {
      for (const id of ['a', 'b']) await inbox.enqueue(refDelivery(id));
      await inbox.enqueue({ ...refDelivery('g1'), orderingKey: 'cus_1' });
      const first = await inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
      expect(first.map((r) => r.externalId)).toEqual(['a', 'b', 'g1']);
      const [a, b, g1] = first as [LeasedRef, LeasedRef, LeasedRef];
      await inbox.enqueue(refDelivery('c'));
      await inbox.enqueue({ ...refDelivery('g2'), orderingKey: 'cus_1' });
      expect(await inbox.extend([a, g1], { leaseMs: 100 })).toBe(2);
      await wait(300);
      const leaseWith = (takeOver: boolean | readonly DeliveryLease[]) =>
        inbox.leaseRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000, takeOver });
      // 'a' and 'g1' lapsed but are not taken; 'g2' waits behind its group's unfinished head.
      const pending = await leaseWith(false);
      expect(pending.map((r) => [r.externalId, r.leases, r.failures])).toEqual([['c', 1, 0]]);
      expect(await inbox.find('stripe', 'a')).toMatchObject({ leases: 1, failures: 0 });
      // Listed: 'b' is held but not expired, 'a' under a lease it no longer has; neither is taken.
      expect(await leaseWith([b, { id: a.id, leases: a.leases + 1 }])).toEqual([]);
      // Only the listed expired lease is taken over, a failure counted; 'g1' stays, and so 'g2'.
      const taken = await leaseWith([a]);
      expect(taken.map((r) => [r.externalId, r.leases, r.failures])).toEqual([['a', 2, 1]]);
      expect(await inbox.find('stripe', 'g1')).toMatchObject({
        status: 'processing',
        leases: 1,
        failures: 0,
      });
      expect(await leaseWith([a])).toEqual([]);
    },
  },
];
