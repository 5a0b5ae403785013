/** @module Inbox-store cases: listings are summaries, filtered (received time too), oldest first, paged; bad input is refused. */
import { type DeliveryListInput, DeliveryStatus } from '../../inbox/types';
import { leaseAll, delivery } from './fixtures';
import { REF_BODY, refDelivery } from './relay';
import type { InboxConformanceCase } from './types';

/** How long the time-range case lets pass between two deliveries: several of any store's milliseconds. */
const RECEIVED_APART_MS = 10;

export const listCases: InboxConformanceCase[] = [
  {
    group: 'list',
    name: 'lists by status and provider, oldest first, up to a limit; refuses a bad filter',
    async run({ inbox }) {
      for (const id of ['a', 'b', 'c']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('g', { provider: 'github' }));
      const [a] = await leaseAll(inbox, 1);
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
      await inbox.leaseRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
      const rows = await inbox.list();
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row).not.toHaveProperty('body');
        expect(row).not.toHaveProperty('headers');
        expect(row.bodyBytes).toBe(REF_BODY.length);
      }
      expect(rows.map((r) => [r.externalId, r.status, r.leases])).toEqual([
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
    name: 'list filters by received time, receivedFrom inclusive and receivedBefore exclusive to the millisecond, with the other filters and afterId',
    async run({ inbox, wait }) {
      // Received one after another, the store's clock moving between them; every bound below is
      // a time the store itself reported, so its clock and this process's need not agree.
      for (const id of ['a', 'b', 'c', 'd']) {
        if (id !== 'a') await wait(RECEIVED_APART_MS);
        await inbox.enqueue(delivery(id, id === 'c' ? { provider: 'github' } : {}));
      }
      const all = await inbox.list();
      const at = (id: string) => all.find((d) => d.externalId === id)!.receivedAt.getTime();
      const ids = async (input: DeliveryListInput) =>
        (await inbox.list(input)).map((d) => d.externalId);
      const ms = (time: number) => new Date(time);
      expect(all.map((d) => d.externalId)).toEqual(['a', 'b', 'c', 'd']);
      const times = ['a', 'b', 'c', 'd'].map(at);
      expect(times.map((time, i) => i === 0 || time > times[i - 1]!)).toEqual([
        true,
        true,
        true,
        true,
      ]);

      expect(await ids({ receivedFrom: ms(at('b')) })).toEqual(['b', 'c', 'd']);
      expect(await ids({ receivedFrom: ms(at('b') + 1) })).toEqual(['c', 'd']);
      expect(await ids({ receivedBefore: ms(at('c')) })).toEqual(['a', 'b']);
      expect(await ids({ receivedBefore: ms(at('c') + 1) })).toEqual(['a', 'b', 'c']);
      const range = { receivedFrom: ms(at('b')), receivedBefore: ms(at('d')) };
      expect(await ids(range)).toEqual(['b', 'c']);
      expect(await ids({ ...range, provider: 'stripe' })).toEqual(['b']);
      expect(await ids({ ...range, status: DeliveryStatus.DONE })).toEqual([]);
      expect(await ids({ receivedFrom: ms(at('d')), receivedBefore: ms(at('d')) })).toEqual([]);
      // Paged by id within the range: each page starts after the last one's id.
      const [first] = await inbox.list({ receivedFrom: ms(at('b')), limit: 1 });
      expect(first!.externalId).toBe('b');
      expect(await ids({ receivedFrom: ms(at('b')), afterId: first!.id, limit: 2 })).toEqual([
        'c',
        'd',
      ]);
      // Any valid Date is a bound, however far: never a database error.
      expect(await ids({ receivedFrom: ms(-8.64e15), receivedBefore: ms(8.64e15) })).toEqual([
        'a',
        'b',
        'c',
        'd',
      ]);
      expect(await ids({ receivedFrom: ms(8.64e15) })).toEqual([]);
      expect(await ids({ receivedBefore: ms(-8.64e15) })).toEqual([]);
      await expect(inbox.list({ receivedFrom: new Date(Number.NaN) })).rejects.toMatchObject({
        code: 'ERR_IDEMPOTENCY_CONFIG',
        option: 'receivedFrom',
      });
      await expect(
        inbox.list({ receivedBefore: '2026-01-01' as unknown as Date }),
      ).rejects.toMatchObject({ option: 'receivedBefore' });
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
