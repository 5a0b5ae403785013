import {
  ClaimLost,
  ConfigError,
  FingerprintMismatch,
  IdempotencyGuard,
  InMemoryStore,
  RequestInProgress,
  RequestKey,
  StoreError,
  type GuardEvent,
  type ProviderPreset,
  type Store,
} from '../src';
import { createEngine } from '../src/adapter';

/** A clock the tests move by hand: staleness is never waited for. */
function fakeClock(start = Date.UTC(2026, 10, 30)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

function setup(staleAfterSeconds = 300) {
  const clock = fakeClock();
  const store = new InMemoryStore();
  const events: GuardEvent[] = [];
  const guard = new IdempotencyGuard(store, {
    staleAfterSeconds,
    clock: clock.now,
    onEvent: (e) => events.push(e),
  });
  return { clock, store, guard, events };
}

/** A promise the test resolves by hand, to hold a handler "running". */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

const key = new RequestKey('payme', 'CreateTransaction:5305e3bab097f420a62ced0b');

describe('IdempotencyGuard', () => {
  it('1. first delivery runs the handler once and completes the receipt', async () => {
    const { guard } = setup();
    const handler = jest.fn(async (_context: { attempts: number }) => ({
      result: { transaction: '42', state: 1 },
    }));
    const outcome = await guard.run(key, handler);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]![0]).toMatchObject({
      attempts: 1,
      isRetry: false,
      transaction: undefined,
    });
    expect(outcome).toEqual({
      response: { result: { transaction: '42', state: 1 } },
      isReplay: false,
      attempts: 1,
    });
    expect(await guard.find(key)).toMatchObject({
      status: 'completed',
      attempts: 1,
      response: '{"result":{"transaction":"42","state":1}}',
    });
  });

  it('2. a repeat after completion replays the stored response without calling the handler', async () => {
    const { guard } = setup();
    await guard.run(key, async () => ({ perform_time: 1700000000000, note: 'ünïcode 😀' }));
    const stored = (await guard.find(key))!.response;
    const handler = jest.fn(async () => ({ perform_time: Date.now() }));
    const again = await guard.run(key, handler);
    expect(handler).not.toHaveBeenCalled();
    expect(again).toEqual({
      response: { perform_time: 1700000000000, note: 'ünïcode 😀' },
      isReplay: true,
      attempts: 1,
    });
    expect((await guard.find(key))!.response).toBe(stored);
  });

  it('2b. a string response is replayed exactly, and a handler returning undefined stores null', async () => {
    const { guard } = setup();
    const k1 = new RequestKey('p', 'str');
    await guard.run(k1, () => '  <xml/>\n');
    expect((await guard.run(k1, () => 'other')).response).toBe('  <xml/>\n');
    const k2 = new RequestKey('p', 'undef');
    await guard.run(k2, () => undefined);
    expect(await guard.run(k2, () => 'x')).toEqual({ response: null, isReplay: true, attempts: 1 });
  });

  it('3. the same external id at two providers is two receipts', async () => {
    const { guard } = setup();
    const a = jest.fn(() => 'a');
    const b = jest.fn(() => 'b');
    await guard.run(new RequestKey('stripe', 'evt_1'), a);
    await guard.run(new RequestKey('paddle', 'evt_1'), b);
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
    expect((await guard.run(new RequestKey('paddle', 'evt_1'), b)).response).toBe('b');
  });

  it('4. a throwing handler fails the receipt, rethrows the same error, and the next delivery runs again', async () => {
    const { guard } = setup();
    const boom = new Error('database is on fire '.repeat(200));
    await expect(guard.run(key, () => Promise.reject(boom))).rejects.toBe(boom);
    const failed = await guard.find(key);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed!.error!.startsWith('Error: database is on fire')).toBe(true);
    expect(failed!.error!.length).toBeLessThanOrEqual(1000);
    expect(failed!.error).not.toContain('    at '); // no stack
    const handler = jest.fn(
      async ({ attempts, isRetry }: { attempts: number; isRetry: boolean }) => ({
        attempts,
        isRetry,
      }),
    );
    const outcome = await guard.run(key, handler);
    expect(outcome).toEqual({
      response: { attempts: 2, isRetry: true },
      isReplay: false,
      attempts: 2,
    });
    expect(await guard.find(key)).toMatchObject({ status: 'completed', attempts: 2, error: null });
  });

  it('4b. a non-Error throw is recorded as text', async () => {
    const { guard } = setup();
    await expect(guard.run(key, () => Promise.reject('plain string'))).rejects.toBe('plain string');
    expect((await guard.find(key))!.error).toBe('plain string');
  });

  it('5. a fresh claim held by another worker: RequestInProgress with the time left, handler not called', async () => {
    const { guard, clock } = setup(300);
    const hold = gate<string>();
    const first = guard.run(key, () => hold.promise);
    clock.advance(100_500);
    const handler = jest.fn();
    const error = await guard.run(key, handler).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestInProgress);
    expect((error as RequestInProgress).retryAfterSeconds).toBe(200); // ceil(199.5)
    expect((error as RequestInProgress).code).toBe('ERR_IDEMPOTENCY_IN_PROGRESS');
    expect(handler).not.toHaveBeenCalled();
    hold.open('done');
    await expect(first).resolves.toMatchObject({ response: 'done', isReplay: false });
  });

  it('6. a stale claim is taken over: attempts + 1, handler runs', async () => {
    const { guard, clock } = setup(300);
    const never = gate<string>();
    void guard.run(key, () => never.promise); // this worker "dies": its handler never returns
    clock.advance(299_999);
    await expect(guard.run(key, () => 'too early')).rejects.toBeInstanceOf(RequestInProgress);
    clock.advance(1);
    const outcome = await guard.run(key, ({ attempts }) => `took over at ${attempts}`);
    expect(outcome).toEqual({ response: 'took over at 2', isReplay: false, attempts: 2 });
  });

  it('6b. two deliveries racing for the same stale claim: exactly one takes it over', async () => {
    const { guard, clock } = setup(60);
    void guard.run(key, () => gate<string>().promise);
    clock.advance(61_000);
    const hold = gate<string>();
    const handler = jest.fn(() => hold.promise);
    const racers = Array.from({ length: 20 }, () =>
      guard.run(key, handler).catch((e: unknown) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    hold.open('winner');
    const results = await Promise.all(racers);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(results.filter((r) => r instanceof RequestInProgress)).toHaveLength(19);
  });

  it('7. fencing: a worker whose claim was taken over cannot complete; the new owner stands', async () => {
    const { guard, clock, events } = setup(60);
    const slow = gate<string>();
    const zombie = guard.run(key, () => slow.promise);
    clock.advance(61_000);
    await expect(guard.run(key, () => 'owner')).resolves.toMatchObject({
      response: 'owner',
      attempts: 2,
    });
    slow.open('zombie');
    const error = await zombie.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimLost);
    expect((error as ClaimLost).attempts).toBe(1);
    expect(await guard.find(key)).toMatchObject({
      status: 'completed',
      response: '"owner"',
      attempts: 2,
    });
    expect(events).toContainEqual({
      type: 'claim-lost',
      key,
      attempts: 1,
      operation: 'complete',
      durationMs: expect.any(Number),
    });
  });

  it('7b. a taken-over worker that fails cannot mark the receipt failed; its own error still reaches it', async () => {
    const { guard, clock, events } = setup(60);
    const slow = gate<void>();
    const boom = new Error('late failure');
    const zombie = guard.run(key, async () => {
      await slow.promise;
      throw boom;
    });
    clock.advance(61_000);
    const owner = gate<string>();
    const ownerRun = guard.run(key, () => owner.promise);
    slow.open();
    await expect(zombie).rejects.toBe(boom);
    expect(await guard.find(key)).toMatchObject({ status: 'processing', attempts: 2, error: null });
    expect(events).toContainEqual({
      type: 'claim-lost',
      key,
      attempts: 1,
      operation: 'fail',
      durationMs: expect.any(Number),
    });
    owner.open('ok');
    await expect(ownerRun).resolves.toMatchObject({ attempts: 2 });
  });

  it('8. completed never changes again, however much later', async () => {
    const { guard, clock } = setup(60);
    await guard.run(key, () => 'first');
    for (const ms of [61_000, 86_400_000, 400 * 86_400_000]) {
      clock.advance(ms);
      const handler = jest.fn(() => 'again');
      await expect(guard.run(key, handler)).resolves.toEqual({
        response: 'first',
        isReplay: true,
        attempts: 1,
      });
      expect(handler).not.toHaveBeenCalled();
    }
    expect(await guard.find(key)).toMatchObject({
      status: 'completed',
      attempts: 1,
      response: '"first"',
    });
  });

  it('9. 100 concurrent runs of one key with a slow handler: the handler runs exactly once', async () => {
    const { guard } = setup();
    const hold = gate<void>();
    let calls = 0;
    const handler = async () => {
      calls++;
      await hold.promise;
      return 'paid';
    };
    const first = Array.from({ length: 50 }, () =>
      guard.run(key, handler).catch((e: unknown) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    hold.open();
    const firstResults = await Promise.all(first);
    const later = await Promise.all(
      Array.from({ length: 50 }, () => guard.run(key, handler).catch((e: unknown) => e)),
    );
    expect(calls).toBe(1);
    const all = [...firstResults, ...later];
    const ran = all.filter(
      (r) => typeof r === 'object' && r !== null && 'isReplay' in r && !r.isReplay,
    );
    const replays = all.filter(
      (r) => typeof r === 'object' && r !== null && 'isReplay' in r && r.isReplay,
    );
    const busy = all.filter((r) => r instanceof RequestInProgress);
    expect(ran).toHaveLength(1);
    expect(replays.length + busy.length).toBe(99);
    expect(replays).toHaveLength(50); // every call after completion is a replay
  });

  it('10. alreadyHandled: false before, while processing and after a failure; true once completed; claims nothing', async () => {
    const { guard, store } = setup();
    expect(await guard.alreadyHandled(key)).toBe(false);
    expect(store.size).toBe(0);
    const hold = gate<void>();
    const running = guard.run(key, async () => {
      await hold.promise;
      throw new Error('no');
    });
    expect(await guard.alreadyHandled(key)).toBe(false);
    hold.open();
    await expect(running).rejects.toThrow('no');
    expect(await guard.alreadyHandled(key)).toBe(false);
    await guard.run(key, () => 'yes');
    expect(await guard.alreadyHandled(key)).toBe(true);
  });

  it('11. purge deletes old finished receipts, keeps newer and every processing one, returns the count', async () => {
    const { guard, clock, store } = setup(60);
    await guard.run(new RequestKey('p', 'old-done'), () => 1);
    await guard
      .run(new RequestKey('p', 'old-failed'), () => Promise.reject(new Error('x')))
      .catch(() => undefined);
    void guard.run(new RequestKey('p', 'old-processing'), () => gate<number>().promise);
    clock.advance(31 * 86_400_000);
    await guard.run(new RequestKey('p', 'new-done'), () => 2);
    expect(await guard.purge({ retentionDays: 30 })).toBe(2);
    expect(
      store
        .list()
        .map((r) => r.externalId)
        .sort(),
    ).toEqual(['new-done', 'old-processing']);
    expect(await guard.purge({ retentionDays: 30 })).toBe(0);
    await expect(guard.purge({ retentionDays: -1 })).rejects.toBeInstanceOf(ConfigError);
  });

  it("11b. purge by provider keeps each provider's own retention", async () => {
    const { guard, clock, store } = setup();
    await guard.run(new RequestKey('stripe', 'evt_1'), () => 1);
    await guard.run(new RequestKey('payme', 'CreateTransaction:1'), () => 2);
    clock.advance(40 * 86_400_000);
    expect(await guard.purge({ provider: 'stripe', retentionDays: 30 })).toBe(1);
    expect(await guard.purge({ provider: 'payme', retentionDays: 3650 })).toBe(0);
    expect(store.list().map((r) => r.provider)).toEqual(['payme']);
    await expect(guard.purge({ provider: '', retentionDays: 1 })).rejects.toMatchObject({
      name: 'ConfigError',
      option: 'provider',
    });
  });

  it('11c. purge refuses a retention shorter than the retry window of a preset an adapter serves on the store, unless forced', async () => {
    const { guard, clock, store } = setup();
    const preset = (provider: string, retentionDays: number): ProviderPreset => ({
      provider,
      key: () => '1',
      needsRawBody: false,
      retentionDays,
    });
    // What an adapter does when it is built: createEngine({ store, preset }).
    createEngine({ store, preset: preset('stripe', 30) });
    createEngine({ guard, preset: preset('payme', 3650) });
    await guard.run(new RequestKey('stripe', 'evt_1'), () => 1);
    await guard.run(new RequestKey('github', 'd_1'), () => 2);
    clock.advance(40 * 86_400_000);

    const refused = { name: 'ConfigError', option: 'retentionDays' };
    await expect(guard.purge({ provider: 'stripe', retentionDays: 7 })).rejects.toMatchObject(
      refused,
    );
    await expect(guard.purge({ retentionDays: 30 })).rejects.toMatchObject({
      ...refused,
      message: expect.stringMatching(/payme \(3650 days\)/),
    });
    expect(store.list()).toHaveLength(2); // nothing was deleted by a refused purge
    // Another provider, the preset's own window, or force: purged as asked.
    expect(await guard.purge({ provider: 'github', retentionDays: 7 })).toBe(1);
    expect(await guard.purge({ provider: 'stripe', retentionDays: 7, force: true })).toBe(1);
    await guard.run(new RequestKey('stripe', 'evt_2'), () => 3);
    clock.advance(40 * 86_400_000);
    expect(await guard.purge({ provider: 'stripe', retentionDays: 30 })).toBe(1);
  });

  it('12. staleness follows the injected clock only: no time passes without it', async () => {
    const { guard } = setup(0.01); // 10 ms
    void guard.run(key, () => gate<void>().promise);
    await new Promise((resolve) => setTimeout(resolve, 30)); // real time passes, the injected clock does not
    await expect(guard.run(key, () => 'x')).rejects.toBeInstanceOf(RequestInProgress);
  });

  describe('fingerprints', () => {
    it('the same key with a different fingerprint is refused and the handler does not run', async () => {
      const { guard } = setup();
      await guard.run(key, () => 'ok', { fingerprint: 'sha256:aaa' });
      const handler = jest.fn();
      const error = await guard
        .run(key, handler, { fingerprint: 'sha256:bbb' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FingerprintMismatch);
      expect((error as FingerprintMismatch).httpStatus).toBe(422);
      expect(handler).not.toHaveBeenCalled();
    });

    it('a mismatch is reported before "in progress", and a matching fingerprint replays', async () => {
      const { guard } = setup();
      const hold = gate<string>();
      const first = guard.run(key, () => hold.promise, { fingerprint: 'a' });
      await expect(guard.run(key, () => 'x', { fingerprint: 'b' })).rejects.toBeInstanceOf(
        FingerprintMismatch,
      );
      await expect(guard.run(key, () => 'x', { fingerprint: 'a' })).rejects.toBeInstanceOf(
        RequestInProgress,
      );
      hold.open('done');
      await first;
      await expect(guard.run(key, () => 'x', { fingerprint: 'a' })).resolves.toMatchObject({
        isReplay: true,
        response: 'done',
      });
      // Issue 8 (item 8): a caller without a fingerprint (no body) who only knows the id does not
      // get the stored answer; an authenticated one (verify passed) does.
      await expect(guard.run(key, () => 'x')).rejects.toBeInstanceOf(FingerprintMismatch);
      await expect(guard.run(key, () => 'x', { verified: true })).resolves.toMatchObject({
        isReplay: true,
        response: 'done',
      });
    });

    it("a failed attempt's fingerprint pins nothing: the genuine payload runs and its fingerprint is recorded (issue 8, item 7)", async () => {
      const { guard, store } = setup();
      const forged = guard.run(key, () => Promise.reject(new Error('bad signature in body')), {
        fingerprint: 'forged',
      });
      await expect(forged).rejects.toThrow('bad signature in body');
      await expect(guard.run(key, () => 'genuine', { fingerprint: 'real' })).resolves.toMatchObject(
        { isReplay: false, attempts: 2 },
      );
      expect((await store.find(key, { now: 0 }))?.fingerprint).toBe('real');
      // Now completed: the forged payload is the mismatch, the genuine one replays.
      await expect(guard.run(key, () => 'x', { fingerprint: 'forged' })).rejects.toBeInstanceOf(
        FingerprintMismatch,
      );
      await expect(guard.run(key, () => 'x', { fingerprint: 'real' })).resolves.toMatchObject({
        isReplay: true,
        response: 'genuine',
      });
    });

    it('a fingerprint longer than the column is hashed to 64 hex characters, never truncated (issue 8, item 6)', async () => {
      const { guard, store } = setup();
      const long = 'f'.repeat(200);
      await guard.run(key, () => 'first', { fingerprint: long });
      const stored = (await store.find(key, { now: 0 }))?.fingerprint;
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      await expect(guard.run(key, () => 'x', { fingerprint: long })).resolves.toMatchObject({
        isReplay: true,
      });
      await expect(
        guard.run(key, () => 'x', { fingerprint: `${'f'.repeat(199)}g` }),
      ).rejects.toBeInstanceOf(FingerprintMismatch);
    });
  });

  describe('store failures', () => {
    const broken = (failOn: keyof Store): Store => {
      const inner = new InMemoryStore();
      return new Proxy(inner, {
        get(target, prop, receiver) {
          if (prop === failOn)
            return () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as Store;
    };

    it('a claim that cannot reach the store throws StoreError with the cause; the handler never runs', async () => {
      const guard = new IdempotencyGuard(broken('claim'));
      const handler = jest.fn();
      const error = await guard.run(key, handler).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).httpStatus).toBe(503);
      expect(((error as StoreError).cause as Error).message).toContain('ECONNREFUSED');
      expect(handler).not.toHaveBeenCalled();
    });

    it('a completion that cannot be written surfaces as StoreError, not as success', async () => {
      const guard = new IdempotencyGuard(broken('complete'));
      await expect(guard.run(key, () => 'done')).rejects.toBeInstanceOf(StoreError);
    });

    it('when fail() cannot be written the handler error still reaches the caller', async () => {
      const events: GuardEvent[] = [];
      const guard = new IdempotencyGuard(broken('fail'), { onEvent: (e) => events.push(e) });
      const boom = new Error('handler');
      await expect(guard.run(key, () => Promise.reject(boom))).rejects.toBe(boom);
      expect(events.some((e) => e.type === 'store-error' && e.operation === 'fail')).toBe(true);
    });

    it('a response the codec cannot encode fails the receipt', async () => {
      const { guard } = setup();
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await expect(guard.run(key, () => circular)).rejects.toThrow(TypeError);
      expect(await guard.find(key)).toMatchObject({ status: 'failed' });
    });

    it('an observer that throws changes nothing', async () => {
      const guard = new IdempotencyGuard(new InMemoryStore(), {
        onEvent: () => {
          throw new Error('observer bug');
        },
      });
      await expect(guard.run(key, () => 'fine')).resolves.toMatchObject({ response: 'fine' });
    });
  });

  describe('transactional mode', () => {
    /** An InMemoryStore with a toy transaction: writes inside are applied only on commit. */
    class TxMemoryStore extends InMemoryStore {
      override readonly capabilities = {
        crossProcess: false,
        transactional: true,
        clock: 'caller' as const,
      };
      commits = 0;
      async withTransaction<T>(
        work: (tx: { pending: Array<() => Promise<boolean>> }) => Promise<T>,
      ): Promise<T> {
        const tx = { pending: [] as Array<() => Promise<boolean>> };
        const result = await work(tx);
        for (const write of tx.pending) await write();
        this.commits++;
        return result;
      }
      override async complete(
        k: Parameters<Store['complete']>[0],
        input: Parameters<Store['complete']>[1],
        tx?: { pending: Array<() => Promise<boolean>> },
      ) {
        if (!tx) return super.complete(k, input);
        const found = await this.find(k, input);
        const ok = found?.status === 'processing' && found.attempts === input.attempts;
        if (ok) tx.pending.push(() => super.complete(k, input));
        return ok;
      }
    }

    it('hands the handler the transaction and completes inside it', async () => {
      const store = new TxMemoryStore();
      const guard = new IdempotencyGuard(store, { transactional: true });
      const outcome = await guard.run(key, ({ transaction }) => {
        expect(transaction).toBeDefined();
        return 'in tx';
      });
      expect(outcome).toMatchObject({ response: 'in tx', isReplay: false });
      expect(store.commits).toBe(1);
      expect(await guard.find(key)).toMatchObject({ status: 'completed', response: '"in tx"' });
    });

    it('a handler error rolls back and the receipt is failed outside the transaction', async () => {
      const store = new TxMemoryStore();
      const guard = new IdempotencyGuard(store, { transactional: true });
      await expect(guard.run(key, () => Promise.reject(new Error('rollback')))).rejects.toThrow(
        'rollback',
      );
      expect(store.commits).toBe(0);
      expect(await guard.find(key)).toMatchObject({ status: 'failed' });
    });

    it('the handler deadline keeps no process alive (its timer is unref-ed)', async () => {
      const guard = new IdempotencyGuard(new TxMemoryStore(), { transactional: true });
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const before = timers();
      let release: (value: string) => void = () => undefined;
      const started = new Promise<void>((running) => {
        void guard
          .run(key, () => {
            running();
            return new Promise<string>((resolve) => {
              release = resolve;
            });
          })
          .then((outcome) => expect(outcome.response).toBe('done'));
      });
      await started;
      expect(timers()).toBe(before);
      release('done');
    });

    it('refuses transactional mode on a store without transactions, naming the option', () => {
      expect(() => new IdempotencyGuard(new InMemoryStore(), { transactional: true })).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'transactional' }),
      );
    });
  });

  describe('options', () => {
    it.each([
      [{ staleAfterSeconds: 0 }, 'staleAfterSeconds'],
      [{ staleAfterSeconds: -5 }, 'staleAfterSeconds'],
      [{ staleAfterSeconds: '300' }, 'staleAfterSeconds'],
      [{ clock: 5 }, 'clock'],
      [{ codec: {} }, 'codec'],
      [{ transactional: 'yes' }, 'transactional'],
      [{ onEvent: 'log' }, 'onEvent'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => new IdempotencyGuard(new InMemoryStore(), options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_IDEMPOTENCY_CONFIG', option }),
      );
    });

    it('a missing store is a ConfigError', () => {
      expect(() => new IdempotencyGuard(undefined as never)).toThrow(ConfigError);
    });
  });
});

describe('a hand-written store whose complete answers a plain boolean', () => {
  it('is completed and replayed as with a promise (JavaScript stores outside the type checker)', async () => {
    class PlainComplete extends InMemoryStore {
      // @ts-expect-error the contract says Promise<boolean>; a JavaScript store may answer a plain value.
      override complete(...args: Parameters<InMemoryStore['complete']>): boolean {
        void super.complete(...args);
        return true;
      }
    }
    // As a JavaScript caller would pass it: the type checker is not there to refuse it.
    const guard = new IdempotencyGuard(new PlainComplete() as unknown as InMemoryStore);
    expect(await guard.run(key, async () => 'booked')).toEqual({
      response: 'booked',
      isReplay: false,
      attempts: 1,
    });
    expect(await guard.run(key, async () => 'again')).toMatchObject({
      response: 'booked',
      isReplay: true,
    });
  });
});

describe('IdempotencyGuard.claim: the split API', () => {
  it('a won claim is a ticket; complete() records the result and the next claim replays it', async () => {
    const { guard, events } = setup();
    const claim = await guard.claim(key);
    if (claim.isReplay) throw new Error('expected a ticket');
    expect(claim.context).toEqual({
      key,
      attempts: 1,
      isRetry: false,
      transaction: undefined,
      effectKey: expect.any(Function),
    });
    expect(await guard.find(key)).toMatchObject({ status: 'processing' });
    await claim.complete({ ok: 1 });
    expect(await guard.claim(key)).toEqual({ response: { ok: 1 }, isReplay: true, attempts: 1 });
    expect(events.map((e) => e.type)).toEqual(['claimed', 'completed', 'replayed']);
  });

  it('while a ticket is unsettled a duplicate is in progress; fail() lets the next delivery retry', async () => {
    const { guard } = setup();
    const claim = await guard.claim(key);
    await expect(guard.claim(key)).rejects.toBeInstanceOf(RequestInProgress);
    if (claim.isReplay) throw new Error('expected a ticket');
    await claim.fail(new Error('bank timeout'));
    expect(await guard.find(key)).toMatchObject({
      status: 'failed',
      error: 'Error: bank timeout',
    });
    const retry = await guard.claim(key);
    expect(retry.isReplay).toBe(false);
    if (!retry.isReplay) expect(retry.context).toMatchObject({ attempts: 2, isRetry: true });
  });

  it('a ticket settles once: complete() again throws, fail() after complete() changes nothing', async () => {
    const { guard } = setup();
    const claim = await guard.claim(key);
    if (claim.isReplay) throw new Error('expected a ticket');
    await claim.complete('first');
    await expect(claim.complete('second')).rejects.toThrow(/settled once/);
    await claim.fail(new Error('late'));
    expect(await guard.find(key)).toMatchObject({ status: 'completed', response: '"first"' });
  });

  it('complete() after a takeover throws ClaimLost and leaves the new owner alone', async () => {
    const { guard, clock } = setup(10);
    const stale = await guard.claim(key);
    clock.advance(11_000);
    const fresh = await guard.claim(key);
    if (stale.isReplay || fresh.isReplay) throw new Error('expected tickets');
    await expect(stale.complete('old owner')).rejects.toBeInstanceOf(ClaimLost);
    await fresh.complete('new owner');
    expect(await guard.find(key)).toMatchObject({ attempts: 2, response: '"new owner"' });
  });

  it('transaction() on a store without transactions is refused and leaves the ticket open', async () => {
    const { guard } = setup();
    const claim = await guard.claim(key);
    if (claim.isReplay) throw new Error('expected a ticket');
    await expect(claim.transaction(() => 'x')).rejects.toThrow(/does not support transactions/);
    await expect(claim.begin()).rejects.toThrow(/does not support transactions/);
    expect(await guard.find(key)).toMatchObject({ status: 'processing' });
    await claim.complete('still open');
    expect(await guard.find(key)).toMatchObject({ status: 'completed' });
  });
});

describe('claim().begin(): the open transaction under failure', () => {
  /**
   * A store whose transactions are driven by the test: `withTransaction` runs the work and then
   * does what `mode` says (commit, fail as a lost connection would, or never begin at all).
   */
  class DrivenTxStore extends InMemoryStore {
    override readonly capabilities = {
      crossProcess: false,
      transactional: true,
      clock: 'caller' as const,
    };
    constructor(private readonly mode: 'commit' | 'connection-lost' | 'never-begins') {
      super();
    }
    async withTransaction<T>(work: (tx: object) => Promise<T>): Promise<T> {
      if (this.mode === 'never-begins') return new Promise<T>(() => undefined);
      const running = work({});
      if (this.mode === 'connection-lost') {
        running.catch(() => undefined);
        throw new Error('Connection terminated unexpectedly');
      }
      return running;
    }
  }

  const claimed = async (guard: IdempotencyGuard<object>, id: string) => {
    const claim = await guard.claim(new RequestKey('tx', id));
    if (claim.isReplay) throw new Error('expected a ticket');
    return claim;
  };

  it('a transaction the store ends while the handler runs is a StoreError for onEnded (a 503), and the receipt is failed', async () => {
    const events: GuardEvent[] = [];
    const guard = new IdempotencyGuard<object>(new DrivenTxStore('connection-lost'), {
      transactional: true,
      onEvent: (e) => events.push(e),
    });
    const open = await (await claimed(guard, 'lost')).begin();
    const ended = await new Promise<unknown>((resolve) => open.onEnded(resolve));
    expect(ended).toBeInstanceOf(StoreError);
    expect(await guard.find(new RequestKey('tx', 'lost'))).toMatchObject({ status: 'failed' });
    expect(events.map((e) => e.type)).toContain('store-error');
    await expect(open.commit({ late: true })).rejects.toBeInstanceOf(StoreError);
    expect(await guard.find(new RequestKey('tx', 'lost'))).toMatchObject({ status: 'failed' });
  });

  it('an onEnded listener that throws neither rejects a later rollback nor leaves an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const guard = new IdempotencyGuard<object>(new DrivenTxStore('connection-lost'), {
        transactional: true,
      });
      const open = await (await claimed(guard, 'throwing-listener')).begin();
      let called = false;
      open.onEnded(() => {
        called = true;
        throw new Error('headers already sent');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(called).toBe(true);
      await expect(open.rollback(new Error('late'))).resolves.toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('claim.fail() after begin() rolls the open transaction back and marks the receipt failed', async () => {
    const guard = new IdempotencyGuard<object>(new DrivenTxStore('commit'), {
      transactional: true,
    });
    const claim = await claimed(guard, 'fail-after-begin');
    const open = await claim.begin();
    await claim.fail(new Error('business rule'));
    expect(await guard.find(new RequestKey('tx', 'fail-after-begin'))).toMatchObject({
      status: 'failed',
      error: 'Error: business rule',
    });
    await expect(open.commit('too late')).rejects.toThrow(/ended once/);
  });

  it('a begin that outlives the deadline throws HandlerTimeout and marks the receipt failed', async () => {
    const guard = new IdempotencyGuard<object>(new DrivenTxStore('never-begins'), {
      transactional: true,
      handlerTimeoutSeconds: 0.05,
    });
    const claim = await claimed(guard, 'never-begins');
    await expect(claim.begin()).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT' });
    expect(await guard.find(new RequestKey('tx', 'never-begins'))).toMatchObject({
      status: 'failed',
    });
  });

  it('transaction() called twice names transaction() in its error', async () => {
    const guard = new IdempotencyGuard<object>(new DrivenTxStore('commit'), {
      transactional: true,
    });
    const claim = await claimed(guard, 'twice');
    await claim.transaction(() => 'once');
    await expect(claim.transaction(() => 'twice')).rejects.toThrow(/transaction\(\) was called/);
  });
});
