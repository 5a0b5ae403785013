/**
 * The inbox worker's bounds on a receipts store without transactions (InMemoryStore, and a
 * SqlStore run by a non-transactional guard): a handler is cut off at its deadline and told so
 * through `context.signal`, its slot is freed even when it never settles, and its lease is renewed
 * while it runs. A receipts store that fails is not the delivery's failure. Claim sizes are capped.
 */
import Database from 'better-sqlite3';
import {
  HandlerTimeout,
  IdempotencyGuard,
  InMemoryStore,
  type Store,
} from '@webhook-idempotency/core';
import {
  createInboxWorker,
  type InboxEvent,
  type InboxHandler,
} from '@webhook-idempotency/core/inbox';
import { createInboxConsumer, createInboxRelay } from '@webhook-idempotency/core/adapter';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { sqliteFile } from './helpers/databases';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

let n = 0;
let db: Database.Database;
let inbox: SqlInbox;
let events: InboxEvent[];

beforeAll(() => {
  db = new Database(sqliteFile('inbox_worker_bounds'));
  db.pragma('journal_mode = WAL');
});
afterAll(() => db.close());
beforeEach(async () => {
  n++;
  await InboxSchema.createTable(db, { table: `inbox_${n}` });
  inbox = new SqlInbox(db, { table: `inbox_${n}` });
  events = [];
});

const enqueue = (externalId: string) =>
  inbox.enqueue({
    provider: 'stripe',
    externalId,
    orderingKey: null,
    headers: {},
    body: Buffer.from(externalId),
  });

/** Polls `check` until it holds or about `ms` have passed; resolves with its last answer. */
async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (await check()) return true;
    await sleep(20);
  }
  return check();
}

/** The receipts without transactions: a 1 s lease means a 0.9 s stale threshold and a 0.8 s deadline. */
const receiptsKinds: Array<
  [string, () => Promise<{ store?: Store<unknown>; guard?: IdempotencyGuard<unknown> }>]
> = [
  ['InMemoryStore', async () => ({ store: new InMemoryStore() })],
  [
    'SqlStore, a non-transactional guard',
    async () => {
      await Schema.createTable(db, { table: `receipts_${n}` });
      const store = new SqlStore(db, { table: `receipts_${n}` });
      return { guard: new IdempotencyGuard<unknown>(store, { staleAfterSeconds: 0.9 }) };
    },
  ],
];

describe.each(receiptsKinds)(
  'a handler that outlives its lease, receipts on %s',
  (_name, receipts) => {
    const worker = async (handler: InboxHandler, extra = {}) =>
      createInboxWorker({
        inbox,
        ...(await receipts()),
        handlers: { stripe: handler },
        visibilityTimeoutSeconds: 1,
        backoffBaseMs: 10,
        pollIntervalMs: 20,
        onEvent: (event: InboxEvent) => void events.push(event),
        ...extra,
      } as never);

    it('is cut off at its deadline and told through its signal; two workers never run it at once; it ends dead', async () => {
      await enqueue('evt_slow');
      let running = 0;
      let most = 0;
      const reasons: unknown[] = [];
      const slow: InboxHandler = async (_delivery, { signal }) => {
        most = Math.max(most, ++running);
        try {
          await sleep(2500, signal);
        } catch (error) {
          reasons.push(error);
          throw error;
        } finally {
          running--;
        }
      };
      const workers = [
        await worker(slow, { maxFailures: 2 }),
        await worker(slow, { maxFailures: 2 }),
      ];
      for (const w of workers) w.start();
      const dead = await until(
        async () => (await inbox.find('stripe', 'evt_slow'))?.status === 'dead',
      );
      await Promise.all(workers.map((w) => w.stop()));
      expect(dead).toBe(true);
      expect(most).toBe(1);
      expect(reasons).toHaveLength(2);
      for (const reason of reasons) expect(reason).toBeInstanceOf(HandlerTimeout);
      expect(await inbox.find('stripe', 'evt_slow')).toMatchObject({
        status: 'dead',
        failures: 2,
        lastError: expect.stringContaining('HandlerTimeout'),
      });
    });

    it('a handler that never settles frees its slot at the deadline: the deliveries behind it are processed', async () => {
      await enqueue('evt_stuck');
      for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
      const done: string[] = [];
      const w = await worker(
        async (delivery) => {
          if (delivery.externalId === 'evt_stuck') return new Promise(() => undefined);
          done.push(delivery.externalId);
        },
        { concurrency: 1, maxFailures: 2 },
      );
      w.start();
      const drained = await until(
        async () => (await inbox.list({ status: 'done' })).length === 3 && done.length === 3,
      );
      await w.stop({ timeoutMs: 0 });
      expect(drained).toBe(true);
      expect(done.sort()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    });

    it('renews the lease of a delivery whose handler is still running', async () => {
      await enqueue('evt_long');
      let firstLease = 0;
      let renewedLease = 0;
      const w = await worker(async (delivery) => {
        firstLease = (await inbox.find('stripe', delivery.externalId))!.availableAt.getTime();
        await sleep(700);
        renewedLease = (await inbox.find('stripe', delivery.externalId))!.availableAt.getTime();
      });
      expect(await w.runOnce()).toBe(1);
      expect(renewedLease).toBeGreaterThan(firstLease);
      expect(await inbox.find('stripe', 'evt_long')).toMatchObject({ status: 'done', failures: 0 });
    });
  },
);

describe('a receipts store that fails', () => {
  it("backs off without spending its deliveries' failures; once it is back, each delivery runs once", async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    // A real store whose table is not there yet: every claim of a receipt fails (a StoreError).
    const store = new SqlStore(db, { table: `receipts_${n}` });
    const ran: string[] = [];
    const w = createInboxWorker({
      inbox,
      store,
      handlers: { stripe: async (delivery) => void ran.push(delivery.externalId) },
      maxFailures: 2,
      backoffBaseMs: 0,
      onEvent: (event) => void events.push(event),
    });
    for (let round = 0; round < 4; round++) expect(await w.runOnce()).toBe(3);
    expect(ran).toEqual([]);
    for (const delivery of await inbox.list())
      expect(delivery).toMatchObject({ status: 'pending', failures: 0, lastError: null });
    expect(events.filter((e) => e.type === 'dead')).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'store-error', operation: 'receipts' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'given-back', reason: 'store-error' }),
    );
    await Schema.createTable(db, { table: `receipts_${n}` });
    expect(await w.runOnce()).toBe(3);
    expect(ran.sort()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect((await inbox.list()).map((d) => d.status)).toEqual(['done', 'done', 'done']);
  });

  it('the queue consumer gives the delivery back to the inbox instead of spending the queue retries, its last one included', async () => {
    await enqueue('evt_1');
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    let ran = 0;
    const events: InboxEvent[] = [];
    const consumer = createInboxConsumer({
      inbox,
      store: new SqlStore(db, { table: `receipts_${n}` }), // no table: every receipt claim fails
      handlers: { stripe: async () => void ran++ },
      onEvent: (event) => events.push(event),
    });
    const job = { id: leased!.id, provider: 'stripe', externalId: 'evt_1', leases: 1 };
    expect(await consumer.process(job, { final: true })).toBe('given-back');
    expect(events.find((e) => e.type === 'given-back')).toMatchObject({ reason: 'store-error' });
    expect(ran).toBe(0);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending', failures: 0 });
  });

  it('a handler that throws a StoreError of its own still fails its delivery', async () => {
    await enqueue('evt_1');
    const own = new (await import('@webhook-idempotency/core')).StoreError('lookup', 'down');
    const w = createInboxWorker({
      inbox,
      store: new InMemoryStore(),
      handlers: {
        stripe: async () => {
          throw own;
        },
      },
      maxFailures: 1,
    });
    expect(await w.runOnce()).toBe(1);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'dead', failures: 1 });
  });
});

describe('claim sizes', () => {
  it('are capped at 1000, past which the databases refuse a claim or renewal for its placeholders', () => {
    const store = new InMemoryStore();
    const handlers = { stripe: async () => undefined };
    expect(() => createInboxWorker({ inbox, store, handlers, concurrency: 1001 })).toThrow(
      expect.objectContaining({ option: 'concurrency', message: expect.stringContaining('1000') }),
    );
    expect(() => createInboxWorker({ inbox, store, handlers, concurrency: 1000 })).not.toThrow();
    const send = async () => undefined;
    expect(() => createInboxRelay({ inbox, providers: ['stripe'], send, sendSize: 1001 })).toThrow(
      expect.objectContaining({ option: 'sendSize' }),
    );
    return expect(
      inbox.lease({ providers: ['stripe'], limit: 1001, leaseMs: 1000 }),
    ).rejects.toMatchObject({ option: 'limit' });
  });
});
