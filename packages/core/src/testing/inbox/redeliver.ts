/** @module Inbox-store cases: an operator's redeliver and retryNow, each one conditional write. */
import { type Delivery, DeliveryStatus } from '../../inbox/types';
import { claimAll, delivery, LEASE } from './fixtures';
import type { InboxConformanceCase } from './types';

export const redeliverCases: InboxConformanceCase[] = [
  {
    group: 'redeliver',
    name: 'redeliver puts a dead or done delivery back, due now, with a fresh failure budget; attempts keep counting',
    async run({ inbox, now }) {
      await inbox.enqueue(delivery('evt_dead'));
      await inbox.enqueue(delivery('evt_done'));
      await inbox.enqueue(delivery('evt_waiting'));
      const [dead, done, waiting] = (await claimAll(inbox, 3)) as [Delivery, Delivery, Delivery];
      expect(await inbox.bury(dead, { error: 'poison' })).toBe(true);
      expect(await inbox.complete(done)).toBe(true);
      expect(await inbox.retry(waiting, { delayMs: LEASE, error: 'once' })).toBe(true);

      expect(await inbox.redeliver('stripe', 'evt_dead')).toBe(DeliveryStatus.DEAD);
      expect(await inbox.find('stripe', 'evt_dead')).toMatchObject({
        status: DeliveryStatus.PENDING,
        attempts: 1,
        failures: 0,
        finishedAt: null,
        lastError: 'poison',
      });
      expect(await inbox.redeliver('stripe', 'evt_done')).toBe(DeliveryStatus.DONE);
      // Pending (already or waiting), processing, not stored: nothing changes.
      expect(await inbox.redeliver('stripe', 'evt_dead')).toBeNull();
      expect(await inbox.redeliver('stripe', 'evt_waiting')).toBeNull();
      expect(await inbox.redeliver('stripe', 'nope')).toBeNull();
      expect((await inbox.find('stripe', 'evt_waiting'))!.availableAt.getTime()).toBeGreaterThan(
        now() + 30_000,
      );
      const again = await claimAll(inbox);
      expect(again.map((d) => [d.externalId, d.attempts, d.failures])).toEqual([
        ['evt_dead', 2, 0],
        ['evt_done', 2, 0],
      ]);
      expect(await inbox.redeliver('stripe', 'evt_dead')).toBeNull();
      // The old leases stay lost: the fencing token only grew.
      expect(await inbox.complete(dead)).toBe(false);
      expect(await inbox.complete(again[0]!)).toBe(true);
    },
  },
  {
    group: 'redeliver',
    name: 'of 10 concurrent redelivers of one dead delivery, exactly one reports it',
    async run({ inbox }) {
      await inbox.enqueue(delivery('evt_1'));
      const [leased] = await claimAll(inbox);
      await inbox.bury(leased!, { error: 'poison' });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => inbox.redeliver('stripe', 'evt_1')),
      );
      expect(results.filter((r) => r !== null)).toEqual([DeliveryStatus.DEAD]);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: 'pending',
        attempts: 1,
      });
    },
  },
  {
    group: 'redeliver',
    name: 'retryNow makes a pending delivery waiting for its backoff due now, and nothing else',
    async run({ inbox }) {
      await inbox.enqueue(delivery('evt_1'));
      const [leased] = await claimAll(inbox);
      expect(await inbox.retry(leased!, { delayMs: LEASE, error: 'boom' })).toBe(true);
      expect(await claimAll(inbox)).toEqual([]);
      expect(await inbox.retryNow('stripe', 'evt_1')).toBe(true);
      // Due already: nothing to change.
      expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
      const [again] = await claimAll(inbox);
      expect(again).toMatchObject({ externalId: 'evt_1', attempts: 2, failures: 1 });
      // Processing, done, not stored.
      expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
      await inbox.complete(again!);
      expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
      expect(await inbox.retryNow('stripe', 'nope')).toBe(false);
      expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
    },
  },
];
