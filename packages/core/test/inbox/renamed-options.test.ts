/**
 * The worker options renamed to the glossary's words (`maxFailures`, `groupSize`,
 * `groupWindowMs`) and purge's `chunkSize`: the old names still work as deprecated aliases, and
 * both names given with different values are refused with a ConfigError naming both.
 */
import { ConfigError, IdempotencyGuard, InMemoryStore } from '../../src';
import type { PurgeInput } from '../../src/adapter';
import {
  createInboxWorker,
  DeliveryStatus,
  type InboxHandler,
  type InboxWorkerOptions,
  InMemoryInbox,
} from '../../src/inbox';

describe('the renamed worker options', () => {
  let time: number;
  let inbox: InMemoryInbox;
  let store: InMemoryStore;

  beforeEach(() => {
    time = Date.UTC(2026, 0, 1);
    inbox = new InMemoryInbox({ now: () => time });
    store = new InMemoryStore();
  });

  const failing: InboxHandler = async () => {
    throw new Error('bad payload');
  };
  const worker = (extra: Partial<InboxWorkerOptions>) =>
    createInboxWorker({ inbox, store, handlers: { stripe: failing }, random: () => 0, ...extra });
  const enqueue = (externalId: string) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  /** Runs the failing handler until the delivery is dead: how many runs it took. */
  async function runsUntilDead(options: Partial<InboxWorkerOptions>): Promise<number> {
    await enqueue('evt_1');
    const w = worker({ backoffBaseMs: 0, ...options });
    let runs = 0;
    while ((await inbox.find('stripe', 'evt_1'))!.status !== DeliveryStatus.DEAD && runs < 20)
      runs += await w.runOnce();
    return runs;
  }

  it('an inbox store written before giveBack gets deliveries back through its retry(…, { error: null })', async () => {
    const errors: Array<string | null> = [];
    // The same store without giveBack, counting what its retry is called with.
    const legacy = new Proxy(inbox, {
      get(target, name) {
        if (name === 'giveBack') return undefined;
        if (name === 'retry')
          return (
            lease: Parameters<InMemoryInbox['retry']>[0],
            input: { delayMs: number; error: string | null },
          ) => {
            errors.push(input.error);
            return target.retry(lease, input);
          };
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await enqueue('evt_held');
    // Another run holds the delivery's receipt: the worker gives the delivery back.
    const held = await store.claim(
      { provider: 'stripe', externalId: 'evt_held' },
      { now: Date.now(), fingerprint: null },
    );
    expect(held.won).toBe(true);
    const w = createInboxWorker({
      inbox: legacy,
      store,
      handlers: { stripe: failing },
      random: () => 0,
    });
    await w.runOnce();
    expect(errors).toEqual([null]);
    expect(await inbox.find('stripe', 'evt_held')).toMatchObject({
      status: DeliveryStatus.PENDING,
      failures: 0,
    });
  });

  it('maxFailures buries a delivery at that many failures', async () => {
    expect(await runsUntilDead({ maxFailures: 3 })).toBe(3);
  });

  it('maxAttempts, its deprecated name, still does', async () => {
    expect(await runsUntilDead({ maxAttempts: 2 })).toBe(2);
  });

  it('maxFailures and maxAttempts together must agree', async () => {
    expect(await runsUntilDead({ maxFailures: 2, maxAttempts: 2 })).toBe(2);
    expect(() => worker({ maxFailures: 2, maxAttempts: 3 })).toThrow(ConfigError);
    expect(() => worker({ maxFailures: 2, maxAttempts: 3 })).toThrow(
      expect.objectContaining({
        option: 'maxFailures',
        message: expect.stringContaining('"maxAttempts"'),
      }),
    );
  });

  it.each([
    ['groupSize', 'batchSize', 101],
    ['groupWindowMs', 'batchWindowMs', -1],
    ['maxFailures', 'maxAttempts', 0],
  ])(
    '%s is checked under its deprecated name %s too, and a refusal names the one given',
    (name, old, bad) => {
      expect(() => worker({ [old]: bad })).toThrow(expect.objectContaining({ option: old }));
      expect(() => worker({ [name]: bad })).toThrow(expect.objectContaining({ option: name }));
    },
  );

  it.each([
    ['groupSize', 'batchSize', 4, 5],
    ['groupWindowMs', 'batchWindowMs', 10, 20],
  ])('%s and %s together must agree', (name, old, one, other) => {
    expect(() => worker({ [name]: one, [old]: one })).not.toThrow();
    expect(() => worker({ [name]: one, [old]: other })).toThrow(
      expect.objectContaining({ option: name, message: expect.stringContaining(`"${old}"`) }),
    );
  });
});

describe("purge's chunkSize", () => {
  /** A memory store that records what the guard asks its purge for. */
  class RecordingStore extends InMemoryStore {
    readonly purges: PurgeInput[] = [];
    override purge(input: PurgeInput): Promise<number> {
      this.purges.push(input);
      return super.purge(input);
    }
  }

  it('guard.purge passes chunkSize, or batchSize its deprecated name, on under both names (a store written before the rename reads batchSize)', async () => {
    const store = new RecordingStore();
    const guard = new IdempotencyGuard(store);
    await guard.purge({ retentionDays: 1, chunkSize: 5 });
    await guard.purge({ retentionDays: 1, batchSize: 7 });
    await guard.purge({ retentionDays: 1 });
    expect(store.purges.map((p) => [p.chunkSize, p.batchSize])).toEqual([
      [5, 5],
      [7, 7],
      [undefined, undefined],
    ]);
  });

  it('guard.purge checks either name and refuses the two disagreeing', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    await expect(guard.purge({ retentionDays: 1, batchSize: 0 })).rejects.toMatchObject({
      option: 'batchSize',
    });
    await expect(guard.purge({ retentionDays: 1, chunkSize: 0 })).rejects.toMatchObject({
      option: 'chunkSize',
    });
    await expect(
      guard.purge({ retentionDays: 1, chunkSize: 5, batchSize: 6 }),
    ).rejects.toMatchObject({
      option: 'chunkSize',
      message: expect.stringContaining('"batchSize"'),
    });
    expect(await guard.purge({ retentionDays: 1, chunkSize: 5, batchSize: 5 })).toBe(0);
  });
});
