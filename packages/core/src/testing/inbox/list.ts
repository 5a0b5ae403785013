/** @module Inbox-store cases: listings are summaries, filtered, oldest first, paged; bad input is refused. */
import { DeliveryStatus } from '../../inbox/types';
import { claimAll, delivery } from './fixtures';
import { REF_BODY, refDelivery } from './relay';
import type { InboxConformanceCase } from './types';

export const listCases: InboxConformanceCase[] = [
  {
    group: 'list',
    name: 'lists by status and provider, oldest first, up to a limit; refuses a bad filter',
    async run({ inbox }) {
      for (const id of ['a', 'b', 'c']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('g', { provider: 'github' }));
      const [a] = await claimAll(inbox, 1);
      await inbox.complete(a!);
      expect(
        (await inbox.list({ status: DeliveryStatus.PENDING })).map((d) => d.externalId),
      ).toEqual(['b', 'c', 'g']);
      expect((await inbox.list({ provider: 'github' })).map((d) => d.externalId)).toEqual(['g']);
      expect(
        (await inbox.list({ provider: 'stripe', status: DeliveryStatus.DONE })).map(
          (d) => d.externalId,
        ),
      ).toEqual(['a']);
      expect((await inbox.list({ limit: 2 })).map((d) => d.externalId)).toEqual(['a', 'b']);
      await expect(inbox.list({ status: 'stuck' as never })).rejects.toMatchObject({
        code: 'ERR_IDEMPOTENCY_CONFIG',
        option: 'status',
      });
      await expect(inbox.list({ limit: 0 })).rejects.toMatchObject({ option: 'limit' });
    },
  },
  {
    group: 'list',
    name: 'list returns summaries: the body size, never the body bytes or the headers',
    async run({ inbox }) {
      for (const id of ['a', 'b']) await inbox.enqueue(refDelivery(id));
      await inbox.claimRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
      const rows = await inbox.list();
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row).not.toHaveProperty('body');
        expect(row).not.toHaveProperty('headers');
        expect(row.bodyBytes).toBe(REF_BODY.length);
      }
      expect(rows.map((r) => [r.externalId, r.status, r.attempts])).toEqual([
        ['a', DeliveryStatus.PROCESSING, 1],
        ['b', DeliveryStatus.PENDING, 0],
      ]);
      expect(rows[0]!.availableAt).toBeInstanceOf(Date);
    },
  },
  {
    group: 'list',
    name: 'list pages with afterId and refuses a limit past 10 000',
    async run({ inbox }) {
      for (const id of ['a', 'b', 'c']) await inbox.enqueue(refDelivery(id));
      const [a] = await inbox.list({ limit: 1 });
      expect((await inbox.list({ afterId: a!.id })).map((r) => r.externalId)).toEqual(['b', 'c']);
      await expect(inbox.list({ limit: 10_001 })).rejects.toMatchObject({ option: 'limit' });
      await expect(inbox.list({ afterId: -1 })).rejects.toMatchObject({ option: 'afterId' });
      expect(await inbox.list({ limit: 10_000 })).toHaveLength(3);
    },
  },
  {
    group: 'list',
    name: 'without a limit, list returns the first 100',
    async run({ inbox }) {
      for (let i = 0; i < 101; i++) await inbox.enqueue(delivery(`evt_${i}`));
      const page = await inbox.list();
      expect(page).toHaveLength(100);
      expect(page[99]!.externalId).toBe('evt_99');
      expect((await inbox.list({ afterId: page[99]!.id })).map((d) => d.externalId)).toEqual([
        'evt_100',
      ]);
    },
  },
];
