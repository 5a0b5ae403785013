/** @module Inbox-store cases: the backlog read (unfinished, stuck, oldest age, recently finished) per provider. */
import { leaseAll, delivery } from './fixtures';
import type { InboxConformanceCase } from './types';

/** How long the older deliveries wait before the fresh one arrives; the threshold sits below it. */
const APART_MS = 500;
const THRESHOLD_MS = 400;

export const backlogCases: InboxConformanceCase[] = [
  {
    group: 'backlog',
    name: 'backlog counts the unfinished deliveries per provider, the stuck ones by their threshold, and the oldest age',
    async run({ inbox, wait }) {
      expect(await inbox.backlog({ stuckAfterMs: THRESHOLD_MS })).toEqual({
        providers: [],
        complete: true,
      });
      for (const id of ['a', 'b']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('g', { provider: 'github' }));
      await leaseAll(inbox, 1); // a is processing: unfinished all the same
      await wait(APART_MS);
      await inbox.enqueue(delivery('c'));
      const { providers, complete } = await inbox.backlog({
        stuckAfterMs: THRESHOLD_MS,
        stuckAfterMsByProvider: { github: 3_600_000 },
      });
      expect(complete).toBe(true);
      expect(providers.map(({ oldestAgeMs: _, ...counts }) => counts)).toEqual([
        { provider: 'github', unfinished: 1, stuck: 0, finished: 0, died: 0, late: 0 },
        { provider: 'stripe', unfinished: 3, stuck: 2, finished: 0, died: 0, late: 0 },
      ]);
      for (const p of providers) {
        expect(p.oldestAgeMs).toBeGreaterThanOrEqual(APART_MS);
        expect(p.oldestAgeMs).toBeLessThan(60_000);
      }
    },
  },
  {
    group: 'backlog',
    name: 'with finishedWithinMs, backlog counts the deliveries finished in the window, the dead and the late ones',
    async run({ inbox, wait }) {
      for (const id of ['done', 'dead', 'open']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('quick', { provider: 'github' }));
      await wait(APART_MS);
      const [done, dead] = await leaseAll(inbox, 2);
      await inbox.complete(done!);
      await inbox.bury(dead!, { error: 'Error: no customer' });
      const [quick] = await leaseAll(inbox, 1, ['github']);
      await inbox.complete(quick!);
      const input = { stuckAfterMs: THRESHOLD_MS, stuckAfterMsByProvider: { github: 3_600_000 } };
      expect((await inbox.backlog({ ...input, finishedWithinMs: 60_000 })).providers).toEqual([
        expect.objectContaining({ provider: 'github', unfinished: 0, oldestAgeMs: null }),
        expect.objectContaining({ provider: 'stripe', unfinished: 1, stuck: 1 }),
      ]);
      const [github, stripe] = (await inbox.backlog({ ...input, finishedWithinMs: 60_000 }))
        .providers;
      expect([github!.finished, github!.died, github!.late]).toEqual([1, 0, 0]);
      expect([stripe!.finished, stripe!.died, stripe!.late]).toEqual([2, 1, 2]);
      // Without a window only the unfinished ones are read: github has none.
      expect((await inbox.backlog(input)).providers).toEqual([
        expect.objectContaining({ provider: 'stripe', unfinished: 1, finished: 0 }),
      ]);
      await wait(APART_MS);
      const later = await inbox.backlog({ ...input, finishedWithinMs: APART_MS / 2 });
      expect(later.providers.map((p) => [p.provider, p.finished])).toEqual([['stripe', 0]]);
    },
  },
  {
    group: 'backlog',
    name: 'backlog reads at most limit rows per part, the oldest unfinished first, and refuses bad input',
    async run({ inbox }) {
      for (const id of ['a', 'b', 'c']) await inbox.enqueue(delivery(id));
      await inbox.enqueue(delivery('g', { provider: 'github' }));
      const capped = await inbox.backlog({ stuckAfterMs: THRESHOLD_MS, limit: 2 });
      expect(capped.complete).toBe(false);
      expect(capped.providers.map((p) => [p.provider, p.unfinished])).toEqual([['stripe', 2]]);
      expect((await inbox.backlog({ stuckAfterMs: 1, limit: 4 })).complete).toBe(false);
      expect((await inbox.backlog({ stuckAfterMs: 1, limit: 5 })).complete).toBe(true);
      for (const [input, option] of [
        [{ stuckAfterMs: 0 }, 'stuckAfterMs'],
        [{ stuckAfterMs: 1, finishedWithinMs: -1 }, 'finishedWithinMs'],
        [{ stuckAfterMs: 1, limit: 0 }, 'limit'],
        [{ stuckAfterMs: 1, limit: 100_001 }, 'limit'],
        [
          { stuckAfterMs: 1, stuckAfterMsByProvider: { stripe: Number.NaN } },
          'stuckAfterMsByProvider.stripe',
        ],
      ] as const)
        await expect(inbox.backlog(input)).rejects.toMatchObject({
          code: 'ERR_IDEMPOTENCY_CONFIG',
          option,
        });
    },
  },
];
