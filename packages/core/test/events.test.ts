/** The timed events (docs/observability.md): every step's duration, the handler's time, one `delivered` per run. */
import { IdempotencyGuard, InMemoryStore, RequestKey, type GuardEvent, type Store } from '../src';
import { createEngine } from '../src/adapter';

/** Waits until at least `ms` have passed by `performance.now()` (a timer alone may fire a little early). */
async function busyFor(ms: number): Promise<void> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(1, ms - (performance.now() - start))),
    );
  }
}

/** A clock the tests move by hand: staleness is never waited for. */
function fakeClock(start = Date.UTC(2026, 11, 1)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

function setup(store: Store = new InMemoryStore()) {
  const clock = fakeClock();
  const events: GuardEvent[] = [];
  const guard = new IdempotencyGuard(store, {
    staleAfterSeconds: 60,
    clock: clock.now,
    onEvent: (event) => void events.push(event),
  });
  const of = <T extends GuardEvent['type']>(type: T) =>
    events.filter((e): e is Extract<GuardEvent, { type: T }> => e.type === type);
  return { guard, clock, events, of };
}

const key = new RequestKey('stripe', 'evt_timed_1');
/** Generous upper bound: durations must be plausible, not fast (this is no benchmark). */
const PLAUSIBLE_MS = 5_000;

function expectDuration(value: number | undefined, atLeast = 0): void {
  expect(typeof value).toBe('number');
  expect(value).toBeGreaterThanOrEqual(atLeast);
  expect(value).toBeLessThan(atLeast + PLAUSIBLE_MS);
}

describe('timed guard events', () => {
  it('a first delivery: claimed, completed with the handler time, one delivered event', async () => {
    const { guard, events, of } = setup();
    await guard.run(key, async () => {
      await busyFor(30);
      return { ok: true };
    });
    expect(events.map((e) => e.type)).toEqual(['claimed', 'completed', 'delivered']);
    const [claimed] = of('claimed');
    expectDuration(claimed?.durationMs);
    const [completed] = of('completed');
    expectDuration(completed?.handlerMs, 30);
    expectDuration(completed?.durationMs);
    const [delivered] = of('delivered');
    expect(delivered).toMatchObject({ key, outcome: 'first', attempts: 1, status: undefined });
    expect(delivered?.handlerMs).toBe(completed?.handlerMs);
    // The whole delivery: claim, handler and completion.
    expect(delivered!.durationMs).toBeGreaterThanOrEqual(
      completed!.handlerMs + completed!.durationMs,
    );
  });

  it('a replay reports its lookup time, and the delivery has no handler time', async () => {
    const { guard, of } = setup();
    await guard.run(key, () => 'once');
    await guard.run(key, () => 'never');
    const [replayed] = of('replayed');
    expect(replayed).toMatchObject({ key, attempts: 1 });
    expectDuration(replayed?.durationMs);
    expect(
      of('delivered').map(({ outcome, attempts, handlerMs }) => ({ outcome, attempts, handlerMs })),
    ).toEqual([
      { outcome: 'first', attempts: 1, handlerMs: expect.any(Number) },
      { outcome: 'replay', attempts: 1, handlerMs: undefined },
    ]);
  });

  it('a duplicate while the first runs: in-progress with its lookup time, delivered as conflict', async () => {
    const { guard, of } = setup();
    let release!: () => void;
    const first = guard.run(
      key,
      () => new Promise<string>((resolve) => (release = () => resolve('done'))),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await expect(guard.run(key, () => 'second')).rejects.toMatchObject({
      name: 'RequestInProgress',
    });
    const [inProgress] = of('in-progress');
    expect(inProgress).toMatchObject({ attempts: 1, retryAfterSeconds: 60 });
    expectDuration(inProgress?.durationMs);
    expect(of('delivered')).toEqual([
      expect.objectContaining({ outcome: 'conflict', attempts: 0, handlerMs: undefined }),
    ]);
    release();
    await first;
    expect(of('delivered').map((e) => e.outcome)).toEqual(['conflict', 'first']);
  });

  it('a handler that fails after 30 ms: failed with handler time >= 30 ms, delivered as failed', async () => {
    const { guard, of } = setup();
    await expect(
      guard.run(key, async () => {
        await busyFor(30);
        throw new Error('card declined');
      }),
    ).rejects.toThrow('card declined');
    const [failed] = of('failed');
    expect(failed).toMatchObject({ attempts: 1, error: 'Error: card declined' });
    expectDuration(failed?.handlerMs, 30);
    expectDuration(failed?.durationMs);
    const [delivered] = of('delivered');
    expect(delivered).toMatchObject({
      outcome: 'failed',
      attempts: 1,
      handlerMs: failed?.handlerMs,
    });
  });

  it('retried tells a retry of a failed receipt (stale: false) from a stale claim taken over (stale: true)', async () => {
    const { guard, clock, of } = setup();
    await expect(guard.run(key, () => Promise.reject(new Error('once')))).rejects.toThrow('once');
    await guard.run(key, () => 'second try');
    const stuck = new RequestKey('stripe', 'evt_stuck');
    await guard.claim(stuck); // a worker that died: never settled
    clock.advance(61_000);
    await guard.run(stuck, () => 'taken over');
    expect(
      of('retried').map(({ key: k, attempts, stale }) => [k.externalId, attempts, stale]),
    ).toEqual([
      ['evt_timed_1', 2, false],
      ['evt_stuck', 2, true],
    ]);
    for (const retried of of('retried')) expectDuration(retried.durationMs);
    expect(of('delivered').map((e) => [e.outcome, e.attempts])).toEqual([
      ['failed', 1],
      ['first', 2],
      ['first', 2],
    ]);
  });

  it('a fingerprint mismatch and a store failure are timed, and end their delivery', async () => {
    const { guard, of } = setup();
    await guard.run(key, () => 'a', { fingerprint: 'body-a' });
    await expect(guard.run(key, () => 'b', { fingerprint: 'body-b' })).rejects.toMatchObject({
      name: 'FingerprintMismatch',
    });
    expectDuration(of('fingerprint-mismatch')[0]?.durationMs);

    const down = new InMemoryStore();
    down.claim = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const broken = setup(down);
    await expect(broken.guard.run(key, () => 'never')).rejects.toMatchObject({
      name: 'StoreError',
    });
    const [storeError] = broken.of('store-error');
    expect(storeError).toMatchObject({ operation: 'claim' });
    expectDuration(storeError?.durationMs);
    expect(broken.of('delivered')).toEqual([
      expect.objectContaining({ outcome: 'store_error', attempts: 0 }),
    ]);
    expect(of('delivered').map((e) => e.outcome)).toEqual(['first', 'mismatch']);
  });

  it('an invalid key is no delivery: no event', async () => {
    const { guard, events } = setup();
    await expect(guard.run({ provider: '', externalId: 'x' }, () => 'never')).rejects.toMatchObject(
      {
        name: 'InvalidRequestKey',
      },
    );
    expect(events).toEqual([]);
  });

  it('the HTTP engine reads no clock without a listener either', async () => {
    const engine = createEngine({ store: new InMemoryStore(), provider: 'p', key: () => 'k1' });
    const http = {
      method: 'POST',
      url: '/hook',
      headers: {},
      rawBody: Buffer.from('{}'),
      body: {},
      native: {},
    };
    const now = jest.spyOn(performance, 'now');
    try {
      const first = await engine.begin(http);
      if (first.action !== 'run') throw new Error(`expected a run, got ${first.action}`);
      await first.run.finish({ status: 200, headers: {}, body: Buffer.from('ok') });
      expect((await engine.begin(http)).action).toBe('respond');
      expect(now).not.toHaveBeenCalled();
    } finally {
      now.mockRestore();
    }
  });

  it('reads no clock without a listener', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const now = jest.spyOn(performance, 'now');
    try {
      await guard.run(key, () => 'first');
      await guard.run(key, () => 'replayed');
      await expect(
        guard.run(new RequestKey('p', 'x'), () => Promise.reject(new Error('no'))),
      ).rejects.toThrow();
      expect(now).not.toHaveBeenCalled();
    } finally {
      now.mockRestore();
    }
  });
});
