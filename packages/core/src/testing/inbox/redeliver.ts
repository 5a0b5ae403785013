/**
 * @module Inbox-store cases: an operator's redeliver and retryNow, each one conditional write and a
 * compare-and-set on the state the operator saw, so that a repair never undoes what a worker did
 * meanwhile.
 */
import { type Delivery, DeliveryStatus } from '../../inbox/types';
import type { InboxStore } from '../../inbox/inbox-store';
import { leaseAll, delivery, LEASE, leaseOne } from './fixtures';
import type { InboxConformanceCase } from './types';

const DEAD = DeliveryStatus.DEAD;
const DONE = DeliveryStatus.DONE;
const PENDING = DeliveryStatus.PENDING;

/** Stores `externalId`, leases it and buries it: dead after one lease. */
async function deadOne(inbox: InboxStore, externalId: string): Promise<Delivery> {
  await inbox.enqueue(delivery(externalId));
  const [leased] = await leaseAll(inbox);
  expect(leased?.externalId).toBe(externalId);
  expect(await inbox.bury(leased!, { error: 'poison' })).toBe(true);
  return leased!;
}

export const redeliverCases: InboxConformanceCase[] = [
  {
    group: 'redeliver',
    name: 'redeliver puts a dead or done delivery back, due now, with a fresh failure budget; leases keep counting',
    async run({ inbox, now }) {
      await inbox.enqueue(delivery('evt_dead'));
      await inbox.enqueue(delivery('evt_done'));
      await inbox.enqueue(delivery('evt_waiting'));
      const [dead, done, waiting] = (await leaseAll(inbox, 3)) as [Delivery, Delivery, Delivery];
      expect(await inbox.bury(dead, { error: 'poison' })).toBe(true);
      expect(await inbox.complete(done)).toBe(true);
      expect(await inbox.retry(waiting, { delayMs: LEASE, error: 'once' })).toBe(true);

      expect(await inbox.redeliver('stripe', 'evt_dead', { status: DEAD, leases: 1 })).toBe(true);
      expect(await inbox.find('stripe', 'evt_dead')).toMatchObject({
        status: PENDING,
        leases: 1,
        failures: 0,
        finishedAt: null,
        lastError: 'poison',
      });
      expect(await inbox.redeliver('stripe', 'evt_done', { status: DONE, leases: 1 })).toBe(true);
      // Pending (already or waiting), not stored: nothing changes, whatever was expected.
      expect(await inbox.redeliver('stripe', 'evt_dead', { status: DEAD, leases: 1 })).toBe(false);
      expect(await inbox.redeliver('stripe', 'evt_waiting', { status: DEAD, leases: 1 })).toBe(
        false,
      );
      expect(await inbox.redeliver('stripe', 'nope', { status: DEAD, leases: 0 })).toBe(false);
      expect((await inbox.find('stripe', 'evt_waiting'))!.availableAt.getTime()).toBeGreaterThan(
        now() + 30_000,
      );
      const again = await leaseAll(inbox);
      expect(again.map((d) => [d.externalId, d.leases, d.failures])).toEqual([
        ['evt_dead', 2, 0],
        ['evt_done', 2, 0],
      ]);
      // Processing: nothing changes.
      expect(await inbox.redeliver('stripe', 'evt_dead', { status: DEAD, leases: 2 })).toBe(false);
      // The old leases stay lost: the fencing token only grew.
      expect(await inbox.complete(dead)).toBe(false);
      expect(await inbox.complete(again[0]!)).toBe(true);
    },
  },
  {
    group: 'redeliver',
    name: 'redeliver is a compare-and-set on the state seen: a dead delivery retried and run to done meanwhile stays done',
    async run({ inbox }) {
      await deadOne(inbox, 'evt_1');
      const seen = await inbox.find('stripe', 'evt_1');
      expect(seen).toMatchObject({ status: DEAD, leases: 1 });
      // Meanwhile another operator retries it and a worker runs it to the end.
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 1 })).toBe(true);
      const [leased] = await leaseAll(inbox);
      expect(await inbox.complete(leased!)).toBe(true);

      // The first operator's retry, of the dead delivery it was shown: left as it is.
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 1 })).toBe(false);
      // Expecting `done` at the leases it was shown with, and it is not: nothing either.
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DONE, leases: 1 })).toBe(false);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: DONE,
        leases: 2,
        finishedAt: expect.any(Date),
      });
      expect(await leaseAll(inbox)).toEqual([]);
    },
  },
  {
    group: 'redeliver',
    name: 'redeliver leaves a delivery that died again on a later attempt as it is, and takes the one seen now',
    async run({ inbox }) {
      await deadOne(inbox, 'evt_1');
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 1 })).toBe(true);
      const [leased] = await leaseAll(inbox);
      expect(await inbox.bury(leased!, { error: 'poison again' })).toBe(true);
      // Dead again, but not the death the operator saw (lease 1): left alone.
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 1 })).toBe(false);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: DEAD, leases: 2 });
      expect(await inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 2 })).toBe(true);
    },
  },
  {
    group: 'redeliver',
    name: 'of 10 concurrent redelivers of one dead delivery, exactly one changes it',
    async run({ inbox }) {
      await deadOne(inbox, 'evt_1');
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          inbox.redeliver('stripe', 'evt_1', { status: DEAD, leases: 1 }),
        ),
      );
      expect(results.filter(Boolean)).toEqual([true]);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: PENDING,
        leases: 1,
      });
    },
  },
  {
    group: 'redeliver',
    name: 'retryNow makes the pending delivery seen, waiting for its backoff, due now, and nothing else',
    async run({ inbox }) {
      const leased = await leaseOne(inbox, 'evt_1');
      expect(await inbox.retry(leased, { delayMs: LEASE, error: 'boom' })).toBe(true);
      expect(await leaseAll(inbox)).toEqual([]);
      // Expecting other leases (an older or newer pending state): nothing.
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 0 })).toBe(false);
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 2 })).toBe(false);
      expect(await leaseAll(inbox)).toEqual([]);
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 1 })).toBe(true);
      // Due already: nothing to change.
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 1 })).toBe(false);
      const [again] = await leaseAll(inbox);
      expect(again).toMatchObject({ externalId: 'evt_1', leases: 2, failures: 1 });
      // Processing, done, not stored.
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 2 })).toBe(false);
      await inbox.complete(again!);
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 2 })).toBe(false);
      expect(await inbox.retryNow('stripe', 'nope', { status: PENDING, leases: 0 })).toBe(false);
      expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DONE);
    },
  },
  {
    group: 'redeliver',
    name: 'retryNow leaves a pending delivery that was leased and failed again since it was seen as it is',
    async run({ inbox }) {
      const first = await leaseOne(inbox, 'evt_1');
      expect(await inbox.retry(first, { delayMs: 0, error: 'boom' })).toBe(true);
      const seen = await inbox.find('stripe', 'evt_1');
      expect(seen).toMatchObject({ status: PENDING, leases: 1 });
      // Meanwhile a worker leases it again and it fails again, with a long backoff this time.
      const [second] = await leaseAll(inbox);
      expect(await inbox.retry(second!, { delayMs: LEASE, error: 'boom again' })).toBe(true);
      expect(await inbox.retryNow('stripe', 'evt_1', { status: PENDING, leases: 1 })).toBe(false);
      expect(await leaseAll(inbox)).toEqual([]);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: PENDING, leases: 2 });
    },
  },
];
