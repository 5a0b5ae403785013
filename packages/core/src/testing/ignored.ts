/** @module Conformance cases: the ignored-event counts (`addIgnored`, `ignoredCounts`), for stores that keep them. */
import { HOUR } from '../constants';
import type { IgnoredTotal } from '../store-contract';
import type { CaseContext, ConformanceCase } from './types';

/** An hour of the suite's calendar (2026-01-01 00:00 UTC plus `n` hours). */
const hourOf = (n: number) => Date.UTC(2026, 0, 1) + n * HOUR;

/** Providers no other case (and no other run on a shared database) writes to. */
function providers({ key }: CaseContext<unknown>, ...labels: string[]): string[] {
  const { externalId } = key('ignored');
  return labels.map((label) => `${label}-${externalId}`);
}

/** A store's totals of `names`, as plain `provider/type=count` lines, in the store's order. */
async function totals(
  { store, now }: CaseContext<unknown>,
  names: readonly string[],
  since: number,
  provider?: string,
): Promise<string[]> {
  const rows: IgnoredTotal[] = await store.ignoredCounts!({ now: now(), since, provider });
  return rows
    .filter((row) => names.includes(row.provider))
    .map((row) => `${row.provider}/${row.type}=${row.count}`);
}

/** Runs on every store, whatever it declares: the flag is there, and honest. */
export const ignoredDeclarationCase: ConformanceCase = {
  group: 'ignored',
  name: 'declares ignoredCounts (true or false), and has addIgnored and ignoredCounts exactly when true',
  async run({ store }) {
    const declared = store.capabilities.ignoredCounts;
    expect(typeof declared).toBe('boolean');
    const operations = [typeof store.addIgnored, typeof store.ignoredCounts];
    expect(operations).toEqual(declared ? ['function', 'function'] : ['undefined', 'undefined']);
  },
};

/** The cases of the counts themselves, left out (by capability flag) for a store without them. */
export const ignoredCountCases: ConformanceCase[] = [
  {
    group: 'ignored',
    name: 'adds counts to one total per provider, type and hour; reads them since an hour, the largest first',
    async run(context) {
      const { store, now } = context;
      const [a, b] = providers(context, 'a', 'b') as [string, string];
      await store.addIgnored!(
        [
          { provider: a, type: 'x', hour: hourOf(0), count: 2 },
          { provider: a, type: 'y', hour: hourOf(0), count: 1 },
        ],
        { now: now() },
      );
      await store.addIgnored!([], { now: now() });
      await store.addIgnored!(
        [
          { provider: a, type: 'x', hour: hourOf(0), count: 3 },
          { provider: a, type: 'x', hour: hourOf(1), count: 1 },
          { provider: b, type: 'x', hour: hourOf(1), count: 4 },
        ],
        { now: now() },
      );
      expect(await totals(context, [a, b], hourOf(0))).toEqual([
        `${a}/x=6`,
        `${b}/x=4`,
        `${a}/y=1`,
      ]);
      // `since` inside an hour counts that whole hour.
      expect(await totals(context, [a, b], hourOf(1) + HOUR / 2)).toEqual([`${b}/x=4`, `${a}/x=1`]);
      expect(await totals(context, [a, b], hourOf(0), a)).toEqual([`${a}/x=6`, `${a}/y=1`]);
      expect(await totals(context, [a, b], hourOf(2))).toEqual([]);
      const rows = await store.ignoredCounts!({ now: now(), since: hourOf(0), provider: a });
      expect(rows.find((row) => row.type === 'x')?.lastHour).toEqual(new Date(hourOf(1)));
      expect(rows.find((row) => row.type === 'y')?.lastHour).toEqual(new Date(hourOf(0)));
    },
  },
  {
    group: 'ignored',
    name: "keeps a sender's types as given: markup, quotes, non-ASCII, 100 characters of emoji",
    async run(context) {
      const [p] = providers(context, 'hostile') as [string];
      const types = [
        '<script>alert(1)</script>',
        `a'b"c\\d;-- DROP TABLE x`,
        'ünïcødé.事件',
        'x ',
        'x',
        '🎉'.repeat(100),
      ];
      const counts = types.map((type, n) => ({ provider: p, type, hour: hourOf(3), count: n + 1 }));
      await context.store.addIgnored!(counts, { now: context.now() });
      const rows = await context.store.ignoredCounts!({
        now: context.now(),
        since: 0,
        provider: p,
      });
      expect(rows.map((row) => [row.type, row.count])).toEqual(
        counts.map(({ type, count }) => [type, count]).reverse(),
      );
    },
  },
  {
    group: 'ignored',
    name: 'loses no count when many callers add to one total at once',
    async run(context) {
      const [p] = providers(context, 'race') as [string];
      const { store, now, concurrency } = context;
      const entry = { provider: p, type: 'raced', hour: hourOf(5), count: 2 };
      const other = { provider: p, type: 'other', hour: hourOf(5), count: 1 };
      await Promise.all(
        Array.from({ length: concurrency }, (_, n) =>
          store.addIgnored!(n % 2 ? [entry, other] : [other, entry], { now: now() }),
        ),
      );
      expect(await totals(context, [p], hourOf(5))).toEqual([
        `${p}/raced=${2 * concurrency}`,
        `${p}/other=${concurrency}`,
      ]);
    },
  },
  {
    group: 'ignored',
    name: "a purge deletes the totals of hours that ended before its cut-off, of its provider when given, and keeps the open hour's",
    async run(context) {
      const { store, now } = context;
      const [a, b] = providers(context, 'purged-a', 'purged-b') as [string, string];
      const open = Math.floor(now() / HOUR) * HOUR;
      const DAY = 24 * HOUR;
      await store.addIgnored!(
        [
          { provider: a, type: 'old', hour: open - 10 * DAY, count: 1 },
          { provider: a, type: 'ended', hour: open - HOUR, count: 2 },
          { provider: a, type: 'open', hour: open, count: 4 },
          { provider: b, type: 'old', hour: open - 10 * DAY, count: 3 },
        ],
        { now: now() },
      );
      await store.purge({ now: now(), olderThanMs: 7 * DAY, provider: a });
      expect(await totals(context, [a, b], 0)).toEqual([
        `${a}/open=4`,
        `${b}/old=3`,
        `${a}/ended=2`,
      ]);
      await store.purge({ now: now(), olderThanMs: 7 * DAY });
      expect(await totals(context, [a, b], 0)).toEqual([`${a}/open=4`, `${a}/ended=2`]);
      // `0`: every hour that has ended, the one still open kept.
      await store.purge({ now: now(), olderThanMs: 0, provider: a });
      expect(await totals(context, [a, b], 0)).toEqual([`${a}/open=4`]);
    },
  },
];

/** Every case of the ignored-event counts. */
export const ignoredCases: readonly ConformanceCase[] = [
  ignoredDeclarationCase,
  ...ignoredCountCases,
];
