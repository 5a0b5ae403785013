/**
 * The queue-agnostic relay and consumer (issue 12) over SqlInbox and a transactional SqlStore, on
 * every kind of connection. `send` here collects the jobs in an array: what a queue engine does
 * with them (redeliver, retry, lose them) is played out by hand, and the real engines run the
 * same engine in packages/pg-boss and packages/bullmq.
 */
import {
  type ConfigError,
  IdempotencyGuard,
  InMemoryStore,
  RequestKey,
} from '@webhook-idempotency/core';
import type { InboxEvent, InboxHandler } from '@webhook-idempotency/core/inbox';
import {
  createInboxConsumer,
  createInboxRelay,
  jobIdOf,
  type QueuedDelivery,
  InvalidJobData,
  queuedDeliveryOf,
} from '@webhook-idempotency/core/adapter';
import { createExecutor } from '../src/connections/detect';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { driverKinds, runOn, type OpenedKind } from './helpers/kinds';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(driverKinds('inbox_relay'))('the inbox relay and consumer (%s)', (_name, open) => {
  let opened: OpenedKind;
  let n = 0;
  let inbox: SqlInbox;
  let store: SqlStore;
  let effects: string;
  let events: InboxEvent[];
  let queue: QueuedDelivery[];

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    n++;
    await InboxSchema.createTable(opened.db, { table: `relay_inbox_${n}` });
    await Schema.createTable(opened.db, { table: `relay_receipts_${n}` });
    effects = `relay_effects_${n}`;
    await createExecutor(opened.db, 10_000).query(
      `CREATE TABLE ${effects} (id VARCHAR(200) NOT NULL)`,
      [],
    );
    inbox = new SqlInbox(opened.db, { table: `relay_inbox_${n}` });
    store = new SqlStore(opened.db, { table: `relay_receipts_${n}` });
    events = [];
    queue = [];
  });

  const enqueue = (externalId: string, orderingKey: string | null = null) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey,
      headers: {},
      body: Buffer.from(JSON.stringify({ id: externalId })),
    });
  const effectRows = async () => {
    const { rows } = await createExecutor(opened.db, 10_000).query(
      `SELECT id FROM ${effects} ORDER BY id`,
      [],
    );
    return rows.map((row) => String(row.id));
  };
  const book: InboxHandler<unknown> = async (delivery, { transaction }) => {
    const { id } = JSON.parse(delivery.body.toString('utf8')) as { id: string };
    await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [id]);
  };
  const relay = (extra = {}) =>
    createInboxRelay({
      inbox,
      providers: ['stripe'],
      send: async (jobs) => void queue.push(...jobs),
      onEvent: (event) => void events.push(event),
      ...extra,
    });
  const consumer = (handler: InboxHandler<unknown> = book, extra = {}) =>
    createInboxConsumer({
      inbox,
      store: store as never,
      handlers: { stripe: handler },
      // What it reports per job (on SQLite it also warns when built: regression/sqlite-inbox-one-connection).
      onEvent: (event) => void (event.type !== 'warning' && events.push(event)),
      ...extra,
    });

  it('hands each due delivery over once; the consumer runs it once and marks it done; a redelivered job replays', async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    expect(await relay().runOnce()).toBe(3);
    expect(await relay().runOnce()).toBe(0);
    expect(queue.map((job) => job.externalId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(queue.every((job) => job.leases === 1)).toBe(true);
    // Handed over: leased for the handoff timeout, not claimable by anyone else.
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'processing' });

    const c = consumer();
    for (const job of queue) expect(await c.process(job, { final: false })).toBe('processed');
    expect(await effectRows()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect((await inbox.list({ status: 'done' })).length).toBe(3);
    // The queue delivers a job again (at-least-once): skipped, nothing doubles.
    expect(await c.process(queue[0]!, { final: false })).toBe('skipped');
    expect(events).toContainEqual(expect.objectContaining({ type: 'skipped', reason: 'finished' }));
    expect(await effectRows()).toEqual(['evt_1', 'evt_2', 'evt_3']);
  });

  it('a job whose effect committed but whose delivery was not marked done is replayed from the receipt', async () => {
    await enqueue('evt_1');
    await relay().runOnce();
    const [job] = queue as [QueuedDelivery];
    // The first run commits its receipt and dies before marking the delivery: a consumer over an
    // inbox whose settle writes fail plays it.
    const lost = Object.create(inbox) as SqlInbox;
    lost.complete = async () => {
      throw new Error('connection lost after the commit');
    };
    // Its done write is its own, after the commit: not one in the receipt's transaction.
    lost.completerFor = () => undefined;
    await expect(consumer(book, { inbox: lost }).process(job, { final: false })).rejects.toThrow(
      'connection lost',
    );
    expect(await effectRows()).toEqual(['evt_1']);
    expect(await consumer().process(job, { final: false })).toBe('replayed');
    expect(await effectRows()).toEqual(['evt_1']);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
  });

  it("while another run holds the receipt, the job gives the delivery back to the inbox instead of spending the queue's retries", async () => {
    await enqueue('evt_1');
    await relay().runOnce();
    // A consumer that died mid-job left its claim; it is not stale yet.
    const held = await new IdempotencyGuard(store as never).claim(
      new RequestKey('stripe', 'evt_1'),
    );
    expect(held.isReplay).toBe(false);
    expect(await consumer().process(queue[0]!, { final: false })).toBe('given-back');
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored).toMatchObject({ status: 'pending', leases: 1, failures: 0 });
    expect(stored!.availableAt.getTime()).toBeGreaterThan(Date.now() + 1000);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'given-back', reason: 'in-progress' }),
    );
    expect(await effectRows()).toEqual([]);
  });

  it('a job for a provider this consumer has no handler for fails like a handler, and its last attempt buries it', async () => {
    await inbox.enqueue({
      provider: 'github',
      externalId: 'd-1',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    await relay({ providers: ['github'] }).runOnce();
    const c = consumer();
    await expect(c.process(queue[0]!, { final: false })).rejects.toThrow(
      'no handler for provider "github"',
    );
    expect(await inbox.find('github', 'd-1')).toMatchObject({ status: 'processing' });
    await expect(c.process(queue[0]!, { final: true })).rejects.toThrow('no handler');
    expect(await inbox.find('github', 'd-1')).toMatchObject({ status: 'dead' });
  });

  it('a failing handler rejects (the queue retries); on the last attempt the delivery is dead with the error', async () => {
    await enqueue('evt_1');
    await relay().runOnce();
    let calls = 0;
    const c = consumer(async () => {
      calls++;
      throw new Error(`boom ${calls}`);
    });
    await expect(c.process(queue[0]!, { final: false })).rejects.toThrow('boom 1');
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'processing' });
    await expect(c.process(queue[0]!, { final: true })).rejects.toThrow('boom 2');
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'dead',
      lastError: 'Error: boom 2',
    });
    expect(events.map((e) => e.type)).toEqual(['queued', 'failed', 'dead']);
    expect(await effectRows()).toEqual([]);
  });

  it('a job the queue lost is handed over again after the handoff timeout; the old job is then skipped', async () => {
    await enqueue('evt_1');
    await relay({ handoffTimeoutSeconds: 1 }).runOnce();
    const [lostJob] = queue as [QueuedDelivery];
    queue.length = 0;
    expect(await relay().runOnce()).toBe(0);
    await sleep(1100);
    expect(await relay().runOnce()).toBe(1);
    const [newJob] = queue as [QueuedDelivery];
    expect(newJob.leases).toBe(2);
    expect(jobIdOf(newJob)).not.toBe(jobIdOf(lostJob));
    expect(await consumer().process(lostJob, { final: false })).toBe('skipped');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'skipped', reason: 'superseded' }),
    );
    expect(await consumer().process(newJob, { final: false })).toBe('processed');
    expect(await effectRows()).toEqual(['evt_1']);
  });

  it('a failed send gives the batch back; the next round hands it over', async () => {
    await enqueue('evt_1');
    let fail = true;
    const flaky = relay({
      pollIntervalMs: 1,
      send: async (jobs: readonly QueuedDelivery[]) => {
        if (fail) throw new Error('queue down');
        queue.push(...jobs);
      },
    });
    expect(await flaky.runOnce()).toBe(0);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'store-error', operation: 'send' }),
    );
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending' });
    fail = false;
    await sleep(20);
    expect(await flaky.runOnce()).toBe(1);
    expect(queue).toHaveLength(1);
  });

  it('a send the queue took only in part: the refused deliveries go back to the inbox, the rest stay handed over', async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    const picky = relay({
      send: async (jobs: readonly QueuedDelivery[]) => {
        const taken = jobs.filter((job) => job.externalId !== 'evt_2');
        queue.push(...taken);
        return taken;
      },
    });
    expect(await picky.runOnce()).toBe(3);
    expect(await inbox.find('stripe', 'evt_2')).toMatchObject({ status: 'pending', failures: 0 });
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'processing' });
    const queued = events.find((e) => e.type === 'queued') as {
      deliveries: readonly QueuedDelivery[];
    };
    expect(queued.deliveries.map((d) => d.externalId)).toEqual(['evt_1', 'evt_3']);
  });

  it('keeps an ordering group in order: the next one is handed over only after the one before is done', async () => {
    await enqueue('evt_1', 'cus_1');
    await enqueue('evt_2', 'cus_1');
    await enqueue('evt_3', null);
    await relay().runOnce();
    expect(queue.map((job) => job.externalId)).toEqual(['evt_1', 'evt_3']);
    await consumer().process(queue[0]!, { final: false });
    await relay().runOnce();
    expect(queue.map((job) => job.externalId)).toEqual(['evt_1', 'evt_3', 'evt_2']);
  });

  it('one round claims and sends at most sendSize deliveries, or batchSize, its deprecated name', async () => {
    for (let i = 0; i < 5; i++) await enqueue(`evt_${i}`);
    expect(await relay({ sendSize: 2 }).runOnce()).toBe(2);
    expect(await relay({ batchSize: 1 }).runOnce()).toBe(1);
    expect(queue).toHaveLength(3);
  });

  it('start() drains the inbox in the background and stop() ends it', async () => {
    for (let i = 0; i < 25; i++) await enqueue(`evt_${i}`);
    const r = relay({ sendSize: 10, pollIntervalMs: 10 });
    r.start();
    for (let i = 0; i < 200 && queue.length < 25; i++) await sleep(10);
    await r.stop();
    expect(r.running).toBe(false);
    expect(new Set(queue.map((job) => job.externalId)).size).toBe(25);
    expect(queue).toHaveLength(25);
  });
});

describe('relay and consumer options and job data', () => {
  const inbox = {
    claim: async () => [],
    claimRefs: async () => [],
    extend: async () => 0,
    find: async () => null,
  } as never;
  const store = new InMemoryStore();

  it('refuses bad options, naming them', () => {
    const send = async () => {};
    const relayCase = (options: object) => () =>
      createInboxRelay({ inbox, providers: ['stripe'], send, ...options } as never);
    expect(relayCase({ providers: [] })).toThrow(expect.objectContaining({ option: 'providers' }));
    expect(relayCase({ send: 'no' })).toThrow(expect.objectContaining({ option: 'send' }));
    expect(relayCase({ sendSize: 0 })).toThrow(expect.objectContaining({ option: 'sendSize' }));
    // batchSize, its deprecated name, is checked as sendSize (a refusal names batchSize); the two must agree.
    expect(relayCase({ batchSize: 0 })).toThrow(expect.objectContaining({ option: 'batchSize' }));
    expect(relayCase({ sendSize: 5, batchSize: 6 })).toThrow(
      expect.objectContaining({
        option: 'sendSize',
        message: expect.stringContaining('"batchSize"'),
      }),
    );
    expect(relayCase({ handoffTimeoutSeconds: -1 })).toThrow(
      expect.objectContaining({ option: 'handoffTimeoutSeconds' }),
    );
    expect(relayCase({ inbox: {} })).toThrow(expect.objectContaining({ option: 'inbox' }));
    expect(relayCase({ inspect: 'no' })).toThrow(expect.objectContaining({ option: 'inspect' }));
    // A relay that inspects its queue reads the lapsed handoffs: an inbox without `lapsed` cannot.
    expect(relayCase({ inspect: async () => [] })).toThrow(
      expect.objectContaining({ option: 'inbox' }),
    );
    expect(relayCase({ store: {} })).toThrow(expect.objectContaining({ option: 'store' }));
    expect(() => createInboxConsumer({ inbox, store, handlers: {} })).toThrow(
      expect.objectContaining({ option: 'handlers' }),
    );
    expect(() => createInboxConsumer({ inbox, handlers: { stripe: () => 1 } } as never)).toThrow(
      expect.objectContaining({ option: 'store' }),
    );
  });

  it('checks job data, naming the field, with its own error class', async () => {
    const job = { id: 1, provider: 'stripe', externalId: 'evt_1', leases: 1 };
    expect(queuedDeliveryOf(job)).toEqual({ ...job, attempts: 1 });
    const field = (data: unknown) => {
      try {
        queuedDeliveryOf(data);
        return 'accepted';
      } catch (error) {
        return (error as ConfigError).option;
      }
    };
    expect(field(null)).toBe('job.data');
    expect(() => queuedDeliveryOf({})).toThrow(InvalidJobData);
    expect(field({ ...job, id: '1' })).toBe('job.data.id');
    expect(field({ ...job, leases: 0 })).toBe('job.data.leases');
    expect(field({ ...job, provider: '' })).toBe('job.data.provider');
    expect(field({ ...job, externalId: 7 })).toBe('job.data.externalId');
  });

  it('job ids are stable per handoff, distinct per lease, and use no characters queues refuse', () => {
    const job = { id: 7, provider: 'stripe', externalId: 'evt:1 / x', leases: 1 };
    expect(jobIdOf(job)).toBe(jobIdOf({ ...job }));
    expect(jobIdOf(job)).toMatch(/^wi-[0-9a-f]{32}-7-1$/);
    expect(jobIdOf({ ...job, leases: 2 })).not.toBe(jobIdOf(job));
    // A handoff named by the lease count's old name (a job queued before the rename): the same id.
    const { leases: _leases, ...ref } = job;
    expect(jobIdOf({ ...ref, attempts: 1 })).toBe(jobIdOf(job));
    expect(jobIdOf({ ...job, externalId: 'evt:2 / x' })).not.toBe(jobIdOf(job));
  });
});
