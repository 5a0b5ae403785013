/**
 * The ignored-event tally: counts in memory, one write per interval (never one per event), a
 * bounded number of types per interval (the rest as `(other)`), bounded and storable type text,
 * and no count lost to a failed write.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { InMemoryStore } from '../src';
import type { IgnoredCount } from '../src/adapter';
import { flushIgnored } from '../src/routing';
import {
  boundedType,
  IgnoredTally,
  ignoredTallyOf,
  MAX_IGNORED_HOURS,
  MAX_IGNORED_TYPE_LENGTH,
  OTHER_TYPE,
  UNNAMED_TYPE,
} from '../src/ignored';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 6, 9, 59, 58);

/** A writer that records every call it gets (and fails the first `fail`). */
function recorder(fail = 0) {
  const writes: IgnoredCount[][] = [];
  const attempts: number[] = [];
  let failures = fail;
  return {
    writes,
    attempts,
    async addIgnored(counts: readonly IgnoredCount[]) {
      attempts.push(Date.now());
      if (failures-- > 0) throw new Error('connect ECONNREFUSED');
      writes.push([...counts]);
    },
    /** The store is back: every later write succeeds. */
    heal() {
      failures = 0;
    },
  };
}

afterEach(() => jest.useRealTimers());

describe('IgnoredTally', () => {
  it('writes nothing per event: one write per interval, with the sums, each in the hour it happened', async () => {
    jest.useFakeTimers({ now: T0 });
    const store = recorder();
    const tally = new IgnoredTally(store, { flushMs: 5000 });
    for (let n = 0; n < 1000; n++)
      tally.count('stripe', n % 4 ? 'customer.created' : 'charge.updated');
    tally.count('github', undefined);
    await jest.advanceTimersByTimeAsync(4999);
    expect(store.writes).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.writes).toEqual([
      [
        { provider: 'github', type: UNNAMED_TYPE, hour: T0 - (T0 % HOUR), count: 1 },
        { provider: 'stripe', type: 'charge.updated', hour: T0 - (T0 % HOUR), count: 250 },
        { provider: 'stripe', type: 'customer.created', hour: T0 - (T0 % HOUR), count: 750 },
      ],
    ]);
    // Idle: no timer, no write. The next event (in the next hour) starts the next interval.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(store.writes).toHaveLength(1);
    tally.count('stripe', 'customer.created');
    await jest.advanceTimersByTimeAsync(5000);
    expect(store.writes[1]).toEqual([
      { provider: 'stripe', type: 'customer.created', hour: T0 - (T0 % HOUR) + HOUR, count: 1 },
    ]);
  });

  it('flush writes at once (what a shutdown calls) and nothing when nothing was counted', async () => {
    const store = recorder();
    const tally = new IgnoredTally(store);
    await tally.flush();
    expect(store.writes).toEqual([]);
    tally.count('stripe', 'x');
    await tally.flush();
    expect(store.writes.map((w) => w.map((c) => c.count))).toEqual([[1]]);
  });

  it('flushes racing a write: each resolves only once what was counted before it is written', async () => {
    const releases: Array<() => void> = [];
    const written: number[][] = [];
    // Every write waits until the test releases it.
    const slow = {
      async addIgnored(counts: readonly IgnoredCount[]) {
        await new Promise<void>((resolve) => releases.push(resolve));
        written.push(counts.map((c) => c.count));
      },
    };
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const tally = new IgnoredTally(slow);
    tally.count('stripe', 'a');
    const done: string[] = [];
    const first = tally.flush().then(() => done.push('first'));
    tally.count('stripe', 'b');
    tally.count('stripe', 'b');
    // Two shutdown hooks flushing the same tally while the first write is in flight.
    const second = tally.flush().then(() => done.push('second'));
    const third = tally.flush().then(() => done.push('third'));
    await settle();
    releases.shift()!();
    await settle();
    // The first write is done; the second (the two b's) is in flight: no later flush has resolved.
    expect(written).toEqual([[1]]);
    expect(done).toEqual(['first']);
    releases.shift()!();
    await Promise.all([first, second, third]);
    expect(written).toEqual([[1], [2]]);
    expect(done.sort()).toEqual(['first', 'second', 'third']);
  });

  it('keeps at most maxTypes types per interval; every later new type counts as (other), no count lost', async () => {
    const store = recorder();
    const tally = new IgnoredTally(store, { maxTypes: 100 });
    for (let n = 0; n < 5000; n++) tally.count('attacker', `invented.${n}`);
    tally.count('attacker', 'invented.7');
    await tally.flush();
    const [written] = store.writes;
    expect(written).toHaveLength(101);
    expect(written!.reduce((sum, c) => sum + c.count, 0)).toBe(5001);
    expect(written!.find((c) => c.type === OTHER_TYPE)?.count).toBe(4900);
    expect(written!.find((c) => c.type === 'invented.7')?.count).toBe(2);
    // The cap is per interval: the next one keeps new types again.
    tally.count('attacker', 'invented.4999');
    await tally.flush();
    expect(store.writes[1]).toEqual([expect.objectContaining({ type: 'invented.4999', count: 1 })]);
  });

  it("bounds a type's length in characters without splitting one, and makes it storable text", () => {
    expect(boundedType('x'.repeat(100_000))).toBe('x'.repeat(MAX_IGNORED_TYPE_LENGTH));
    const emoji = boundedType('🎉'.repeat(150));
    expect(Array.from(emoji)).toHaveLength(MAX_IGNORED_TYPE_LENGTH);
    expect(emoji).toBe('🎉'.repeat(MAX_IGNORED_TYPE_LENGTH));
    expect(boundedType('a\u0000b\ud800c\n')).toBe('a\ufffdb\ufffdc\ufffd');
    expect(boundedType(undefined)).toBe(UNNAMED_TYPE);
    expect(boundedType('')).toBe(UNNAMED_TYPE);
    expect(boundedType('<script>alert(1)</script>')).toBe('<script>alert(1)</script>');
  });

  it('a failed write loses no count: they go with the next write, and the failure is reported', async () => {
    const store = recorder(1);
    const errors: unknown[] = [];
    const tally = new IgnoredTally(store, {
      onError: (error) => {
        errors.push(error);
        throw new Error('a throwing observer changes nothing');
      },
    });
    tally.count('stripe', 'a');
    tally.count('stripe', 'a');
    await tally.flush();
    expect(store.writes).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ message: 'connect ECONNREFUSED' })]);
    tally.count('stripe', 'a');
    await tally.flush();
    expect(store.writes).toEqual([[expect.objectContaining({ type: 'a', count: 3 })]]);
  });

  it('a count kept after a failed write stays in the hour it happened, whenever it is written', async () => {
    const beforeHour = Date.UTC(2026, 11, 6, 9, 59, 59);
    jest.useFakeTimers({ now: beforeHour });
    const store = recorder(1);
    const tally = new IgnoredTally(store, { flushMs: 5000 });
    tally.count('stripe', 'a');
    await tally.flush();
    expect(store.writes).toEqual([]);
    await jest.advanceTimersByTimeAsync(2000);
    tally.count('stripe', 'a');
    await tally.flush();
    const nine = Date.UTC(2026, 11, 6, 9);
    expect(store.writes).toEqual([
      [
        { provider: 'stripe', type: 'a', hour: nine, count: 1 },
        { provider: 'stripe', type: 'a', hour: nine + HOUR, count: 1 },
      ],
    ]);
  });

  it('stays bounded through a long outage: the last hours apart, older ones added to the oldest of them, no count lost', async () => {
    let now = Date.UTC(2026, 11, 1, 0, 30);
    const store = recorder(Number.POSITIVE_INFINITY);
    const tally = new IgnoredTally(store, { clock: () => now, maxTypes: 10, flushMs: HOUR });
    // 200 hours with the store down: 30 types an hour from two providers, flushed (and failing) every hour.
    for (let hour = 0; hour < 200; hour++) {
      for (let n = 0; n < 30; n++) tally.count(n % 2 ? 'shop' : 'crm', `type.${hour}.${n}`);
      await tally.flush();
      now += HOUR;
    }
    expect(store.writes).toEqual([]);
    expect(store.attempts).toHaveLength(200);
    store.heal();
    await tally.flush();
    const [written] = store.writes;
    const hours = new Set(written!.map((count) => count.hour));
    expect(hours.size).toBe(MAX_IGNORED_HOURS);
    expect(Math.max(...hours)).toBe(Date.UTC(2026, 11, 1) + 199 * HOUR);
    // Each hour: at most its 10 types and one (other) per provider.
    expect(written!.length).toBeLessThanOrEqual(MAX_IGNORED_HOURS * (10 + 2));
    expect(written!.reduce((sum, count) => sum + count.count, 0)).toBe(200 * 30);
  });

  it('waits twice as long after each failed write (a store down, a table not created), then as before', async () => {
    jest.useFakeTimers({ now: T0 });
    const store = recorder(3);
    const tally = new IgnoredTally(store, { flushMs: 5000 });
    tally.count('stripe', 'a');
    await jest.advanceTimersByTimeAsync(5000 + 10_000 + 20_000 + 40_000);
    expect(store.attempts.map((at) => at - T0)).toEqual([5000, 15_000, 35_000, 75_000]);
    expect(store.writes).toEqual([[expect.objectContaining({ count: 1 })]]);
    tally.count('stripe', 'a');
    await jest.advanceTimersByTimeAsync(5000);
    expect(store.writes).toHaveLength(2);
  });
});

describe('ignoredTallyOf / flushIgnored', () => {
  it("one tally per store that keeps counts; none for a store that does not; flushIgnored writes the store's", async () => {
    const store = new InMemoryStore();
    const tally = ignoredTallyOf(store);
    expect(ignoredTallyOf(store)).toBe(tally);
    tally!.count('stripe', 'customer.created');
    expect(await store.ignoredCounts({ now: 0, since: 0 })).toEqual([]);
    await flushIgnored(store);
    expect(await store.ignoredCounts({ now: 0, since: 0 })).toEqual([
      expect.objectContaining({ provider: 'stripe', type: 'customer.created', count: 1 }),
    ]);
    const without = new InMemoryStore();
    Object.assign(without, { capabilities: { ...without.capabilities, ignoredCounts: false } });
    expect(ignoredTallyOf(without)).toBeUndefined();
    await expect(flushIgnored(without)).resolves.toBeUndefined();
  });

  it('keeps the error listeners of engines built on one store only while their owners hold them', async () => {
    const store = new InMemoryStore();
    Object.assign(store, {
      addIgnored: () => Promise.reject(new Error('counts table unreachable')),
    });
    const heard: string[] = [];
    const kept = (error: unknown) => heard.push(`kept: ${(error as Error).message}`);
    const tally = ignoredTallyOf(store, kept)!;
    let collected = 0;
    const registry = new FinalizationRegistry(() => collected++);
    // As an app that builds an engine per request on one long-lived store: each adds a listener.
    (() => {
      for (let n = 0; n < 50; n++) {
        const dropped = (error: unknown) => heard.push(`dropped ${n}: ${String(error)}`);
        ignoredTallyOf(store, dropped);
        registry.register(dropped, n);
      }
    })();
    for (let round = 0; round < 20 && collected < 50; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(collected).toBe(50);
    tally.count('stripe', 'customer.created');
    await tally.flush().catch(() => undefined);
    expect(heard).toEqual(['kept: counts table unreachable']);
  });
});
