/**
 * @module Conformance cases: the group operations, `known` and `recordFirst`. A store that records
 * some entries of a call and not the others, overwrites a receipt, or reads and then inserts
 * fails them.
 */
import type { KeyLike } from '../request-key';
import type { At, FirstRun, ObservedReceipt, Store } from '../types';
import { claimed, expectReceipt } from './fixtures';
import type { ConformanceCase } from './types';

const awkward = 'naïve "quotes" \\ back\nslash \u0001 😀 ' + "' OR 1=1; --";

const times = <T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

/** The store's group operations; a store without them fails every group case, saying so. */
export function groupOperations<Tx>(store: Store<Tx>): {
  known(keys: readonly KeyLike[], at: At, transaction?: Tx): Promise<boolean[]>;
  recordFirst(entries: readonly FirstRun[], at: At, transaction?: Tx): Promise<boolean>;
} {
  const { known, recordFirst } = store;
  if (typeof known !== 'function' || typeof recordFirst !== 'function')
    throw new TypeError(
      'the store implements no group operations: Store.known and Store.recordFirst are part of the contract',
    );
  return {
    known: (keys, at, transaction) => known.call(store, keys, at, transaction),
    recordFirst: (entries, at, transaction) => recordFirst.call(store, entries, at, transaction),
  };
}

/** A first run of `key` with `response` and a handler time of `handlerMs`. */
export const firstRun = (key: KeyLike, response = '"ok"', handlerMs = 5): FirstRun => ({
  key,
  response,
  handlerMs,
});

/** `receipt` without its age (which moves with the clock). */
const still = (receipt: ObservedReceipt | null) => {
  if (receipt === null) return null;
  const { claimAgeMs: _age, ...rest } = receipt;
  return rest;
};

export const groupCases: ConformanceCase[] = [
  {
    group: 'group',
    name: 'known tells, per key in order, which have a receipt, whatever its status',
    async run({ store, now, key }) {
      const { known } = groupOperations(store);
      const [processing, completed, failed, absent] = ['p', 'c', 'f', 'a'].map((l) => key(l));
      await store.claim(processing!, { now: now(), fingerprint: null });
      await store.claim(completed!, { now: now(), fingerprint: null });
      await store.complete(completed!, { now: now(), attempts: 1, response: '"x"' });
      await store.claim(failed!, { now: now(), fingerprint: null });
      await store.fail(failed!, { now: now(), attempts: 1, error: 'boom' });
      const keys = [absent!, processing!, completed!, failed!, absent!, completed!];
      expect(await known(keys, { now: now() })).toEqual([false, true, true, true, false, true]);
      expect(await known([], { now: now() })).toEqual([]);
      expect(await store.find(absent!, { now: now() })).toBeNull();
    },
  },
  {
    group: 'group',
    name: 'recordFirst writes completed receipts: attempt 1, the response byte for byte, each its own handler time',
    async run({ store, now, key }) {
      const { recordFirst, known } = groupOperations(store);
      const runs = [
        firstRun(key('r1'), awkward, 1500),
        firstRun(key('r2'), '"second"', 12.6),
        firstRun(key('r3'), '{}', -5),
      ];
      expect(await recordFirst(runs, { now: now() })).toBe(true);
      for (const [i, { key: k, response }] of runs.entries()) {
        const found = await store.find(k, { now: now() });
        expect(found).toMatchObject({
          provider: k.provider,
          externalId: k.externalId,
          status: 'completed',
          attempts: 1,
          response,
          error: null,
          fingerprint: null,
        });
        const took = found!.finishedAt!.getTime() - found!.claimedAt.getTime();
        expect(took).toBe([1500, 13, 0][i]);
      }
      expect(
        await known(
          runs.map((r) => r.key),
          { now: now() },
        ),
      ).toEqual([true, true, true]);
      expect(await recordFirst([], { now: now() })).toBe(true);
    },
  },
  {
    group: 'group',
    name: 'recordFirst is all or nothing: one key with a receipt (processing, completed or failed) and nothing is written or changed',
    async run({ store, now, key }) {
      const { recordFirst } = groupOperations(store);
      for (const status of ['processing', 'completed', 'failed'] as const) {
        const held = key(`held-${status}`);
        await store.claim(held, { now: now(), fingerprint: 'fp' });
        if (status === 'completed')
          await store.complete(held, { now: now(), attempts: 1, response: '"mine"' });
        if (status === 'failed') await store.fail(held, { now: now(), attempts: 1, error: 'x' });
        const before = still(await store.find(held, { now: now() }));
        const fresh = [key(`fresh-a-${status}`), key(`fresh-b-${status}`)];
        const entries = [firstRun(fresh[0]!), firstRun(held, '"overwritten"'), firstRun(fresh[1]!)];
        expect(await recordFirst(entries, { now: now() })).toBe(false);
        for (const k of fresh) expect(await store.find(k, { now: now() })).toBeNull();
        expect(still(await store.find(held, { now: now() }))).toEqual(before);
      }
    },
  },
  {
    group: 'group',
    name: "recordFirst of 90 entries (past a statement's bound parameters on D1) is written whole; one key with a receipt among its last ones and nothing is",
    async run({ store, now, key }) {
      const { recordFirst, known } = groupOperations(store);
      const held = await claimed(store, now, key('held-late'));
      const refused = Array.from({ length: 90 }, (_, i) =>
        firstRun(i === 80 ? held : key(`refused-${i}`), `"r${i}"`),
      );
      expect(await recordFirst(refused, { now: now() })).toBe(false);
      const others = refused.filter((_, i) => i !== 80).map((entry) => entry.key);
      expect((await known(others, { now: now() })).filter(Boolean)).toEqual([]);
      const whole = Array.from({ length: 90 }, (_, i) => firstRun(key(`whole-${i}`), `"w${i}"`));
      expect(await recordFirst(whole, { now: now() })).toBe(true);
      expect(
        await known(
          whole.map((entry) => entry.key),
          { now: now() },
        ),
      ).toEqual(whole.map(() => true));
      expect(await store.find(whole[89]!.key, { now: now() })).toMatchObject({
        status: 'completed',
        response: '"w89"',
      });
    },
  },
  {
    group: 'group',
    name: 'recordFirst naming one key twice writes nothing',
    async run({ store, now, key }) {
      const { recordFirst } = groupOperations(store);
      const [twice, other] = [key('twice'), key('other')];
      const entries = [firstRun(twice, '"a"'), firstRun(other), firstRun({ ...twice }, '"b"')];
      expect(await recordFirst(entries, { now: now() })).toBe(false);
      expect(await store.find(twice, { now: now() })).toBeNull();
      expect(await store.find(other, { now: now() })).toBeNull();
    },
  },
  {
    group: 'group',
    name: 'a recorded receipt is final: a claim replays it, take-overs and settles are refused',
    async run({ store, now, key, advance }) {
      const { recordFirst } = groupOperations(store);
      const k = key('recorded');
      expect(await recordFirst([firstRun(k, '"first"')], { now: now() })).toBe(true);
      const claim = await store.claim(k, { now: now(), fingerprint: 'fp' });
      expect(claim).toMatchObject({ won: false, receipt: { status: 'completed', attempts: 1 } });
      expect(await store.complete(k, { now: now(), attempts: 1, response: '"x"' })).toBe(false);
      expect(await store.fail(k, { now: now(), attempts: 1, error: 'late' })).toBe(false);
      await advance(400 * 24 * 3600 * 1000);
      expect(await store.reclaim(k, { now: now(), attempts: 1, staleAfterMs: 1000 })).toBeNull();
      expect(await recordFirst([firstRun(k, '"again"')], { now: now() })).toBe(false);
      await expectReceipt(store, now, k, { status: 'completed', response: '"first"' });
    },
  },
  {
    group: 'concurrency',
    name: 'N parallel recordFirst calls sharing a key: exactly one writes, the others write nothing of theirs',
    async run({ store, now, key, concurrency }) {
      const { recordFirst } = groupOperations(store);
      const shared = key('shared');
      const own = Array.from({ length: concurrency }, (_, i) => key(`own-${i}`));
      const results = await times(concurrency, (i) =>
        recordFirst([firstRun(shared, `"${i}"`), firstRun(own[i]!)], { now: now() }),
      );
      const winners = results.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      const found = await Promise.all(own.map((k) => store.find(k, { now: now() })));
      expect(found.map((r) => r !== null)).toEqual(own.map((_, i) => i === winners[0]));
      expect(await store.find(shared, { now: now() })).toMatchObject({
        status: 'completed',
        response: `"${winners[0]}"`,
      });
    },
  },
  {
    group: 'concurrency',
    name: 'claims and recordFirst calls racing on one key: exactly one of them wins',
    async run({ store, now, key, concurrency }) {
      const { recordFirst } = groupOperations(store);
      const k = key('claim-or-record');
      const results = await times(concurrency, async (i) =>
        i % 2 === 0
          ? (await store.claim(k, { now: now(), fingerprint: null })).won
          : recordFirst([firstRun(k, `"${i}"`)], { now: now() }),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      const found = await store.find(k, { now: now() });
      expect(found?.status).toBe(winner % 2 === 0 ? 'processing' : 'completed');
    },
  },
];
