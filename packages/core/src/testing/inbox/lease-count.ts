/**
 * @module Inbox-store cases: the lease count's deprecated name. For one minor version a delivery
 * carries its `leases` under its old name `attempts` too, and a lease or an expected state given
 * by `attempts` alone (written before the rename) fences as `leases` does.
 */
import { DeliveryStatus } from '../../inbox/types';
import { leaseAll, delivery, LEASE, leaseOne } from './fixtures';
import type { InboxConformanceCase } from './types';

/** `leases` and its deprecated alias, equal. */
const counted = (leases: number) => ({ leases, attempts: leases });

export const leaseCountCases: InboxConformanceCase[] = [
  {
    group: 'lease count',
    name: 'every delivery read carries attempts, the deprecated name of leases, with the same number',
    async run({ inbox, wait }) {
      await inbox.enqueue(delivery('a'));
      expect(await inbox.find('stripe', 'a')).toMatchObject(counted(0));
      const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 50 });
      expect(leased).toMatchObject(counted(1));
      await wait(120);
      const [lapsed] = await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 });
      expect(lapsed).toMatchObject(counted(1));
      const [ref] = await inbox.leaseRefs({ providers: ['stripe'], limit: 1, leaseMs: LEASE });
      expect(ref).toMatchObject(counted(2));
      expect(await inbox.list()).toMatchObject([counted(2)]);
      expect(await inbox.find('stripe', 'a')).toMatchObject(counted(2));
    },
  },
  {
    group: 'lease count',
    name: 'a lease or an expected state given by attempts alone fences as leases does',
    async run({ inbox }) {
      const one = await leaseOne(inbox, 'evt_1');
      const old = (attempts: number) => ({ id: one.id, attempts });
      expect(await inbox.complete(old(2))).toBe(false);
      expect(await inbox.extend([old(2)], { leaseMs: LEASE })).toBe(0);
      expect(await inbox.extend([old(1)], { leaseMs: LEASE })).toBe(1);
      expect(await inbox.retry(old(1), { delayMs: 0, error: 'counted' })).toBe(true);
      const [again] = await leaseAll(inbox);
      expect(await inbox.bury(old(1), { error: 'late' })).toBe(false);
      expect(await inbox.bury({ id: again!.id, attempts: 2 }, { error: 'dead' })).toBe(true);
      const dead = { status: DeliveryStatus.DEAD } as const;
      expect(await inbox.redeliver('stripe', 'evt_1', { ...dead, attempts: 1 })).toBe(false);
      expect(await inbox.redeliver('stripe', 'evt_1', { ...dead, attempts: 2 })).toBe(true);
      const [third] = await leaseAll(inbox);
      expect(
        await inbox.retry({ id: third!.id, attempts: 3 }, { delayMs: 60_000, error: 'x' }),
      ).toBe(true);
      const pending = { status: DeliveryStatus.PENDING } as const;
      expect(await inbox.retryNow('stripe', 'evt_1', { ...pending, attempts: 2 })).toBe(false);
      expect(await inbox.retryNow('stripe', 'evt_1', { ...pending, attempts: 3 })).toBe(true);
      const [fourth] = await leaseAll(inbox);
      expect(fourth).toMatchObject(counted(4));
      expect(await inbox.complete({ id: fourth!.id, attempts: 4 })).toBe(true);
    },
  },
];
