/** @module Inbox-store cases: storing a delivery once, the exact bytes. */
import { DeliveryStatus } from '../../inbox/types';
import { BODY, delivery } from './fixtures';
import type { InboxConformanceCase } from './types';

export const enqueueCases: InboxConformanceCase[] = [
  {
    group: 'enqueue',
    name: 'stores a delivery once: the same key again changes nothing; the bytes and headers come back exactly',
    async run({ inbox, now }) {
      expect(await inbox.enqueue(delivery('evt_1'))).toBe(true);
      expect(await inbox.enqueue(delivery('evt_1', { body: Buffer.from('other') }))).toBe(false);
      const stored = await inbox.find('stripe', 'evt_1');
      expect(stored).toMatchObject({
        provider: 'stripe',
        externalId: 'evt_1',
        status: DeliveryStatus.PENDING,
        leases: 0,
        failures: 0,
        orderingKey: null,
        finishedAt: null,
        lastError: null,
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=ab' },
      });
      expect(Buffer.compare(stored!.body, BODY)).toBe(0);
      expect(stored!.receivedAt.getTime()).toBeGreaterThan(now() - 60_000);
      expect(await inbox.list()).toHaveLength(1);
      expect(await inbox.find('stripe', 'evt_2')).toBeNull();
      expect(await inbox.find('github', 'evt_1')).toBeNull();
    },
  },
  {
    group: 'enqueue',
    name: 'the same external id at two providers is two deliveries',
    async run({ inbox }) {
      expect(await inbox.enqueue(delivery('evt_1'))).toBe(true);
      expect(await inbox.enqueue(delivery('evt_1', { provider: 'github' }))).toBe(true);
      expect((await inbox.list()).map((d) => [d.provider, d.externalId])).toEqual([
        ['stripe', 'evt_1'],
        ['github', 'evt_1'],
      ]);
      expect(await inbox.find('github', 'evt_1')).toMatchObject({ provider: 'github' });
    },
  },
  {
    group: 'enqueue',
    name: 'an empty body and no headers come back as such',
    async run({ inbox }) {
      expect(
        await inbox.enqueue(delivery('evt_empty', { body: Buffer.alloc(0), headers: {} })),
      ).toBe(true);
      const stored = await inbox.find('stripe', 'evt_empty');
      expect(stored!.headers).toEqual({});
      expect(Buffer.isBuffer(stored!.body)).toBe(true);
      expect(stored!.body).toHaveLength(0);
      expect((await inbox.list())[0]!.bodyBytes).toBe(0);
    },
  },
  {
    group: 'enqueue',
    name: 'of 20 concurrent enqueues of one key, exactly one stores it',
    async run({ inbox }) {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => inbox.enqueue(delivery('evt_race'))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await inbox.list()).toHaveLength(1);
    },
  },
];
