/**
 * The BullMQ bridge (issue 12) on a real Redis and real databases (PostgreSQL, MariaDB, SQLite):
 * a stored delivery goes relay → queue → worker → handler once and ends `done`; a job BullMQ runs
 * again, or a second job for the same delivery, does not double the business effect (one that
 * finds the receipt held gives the delivery back for the relay to hand over again); a failing
 * handler is retried by BullMQ and commits once, and one failing every attempt ends `dead`.
 */
import { RequestKey } from '@webhook-idempotency/core';
import type { InboxEvent, InboxHandler } from '@webhook-idempotency/core/inbox';
import {
  type ConsumeOutcome,
  jobIdOf,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import { type Job, Queue, Worker, type WorkerOptions } from 'bullmq';
import { bullmqProcessor, bullmqRelay, DEFAULT_JOB_OPTIONS } from '../src';
import { book, connect, type Connected, type Fixture, fixture, targets } from './helpers/fixture';
import { redisConnection } from './helpers/redis';

const connection = redisConnection();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(targets('bullmq_bridge'))('the BullMQ bridge (%s)', (_name, open) => {
  let connected: Connected;
  let f: Fixture;
  let queue: Queue<QueuedDelivery>;
  const closers: Array<() => Promise<unknown>> = [];
  const workerErrors: unknown[] = [];

  beforeAll(async () => {
    connected = connect(await open());
  });
  afterAll(() => connected.close());
  beforeEach(async () => {
    f = await fixture(connected, 'bq');
    queue = new Queue(f.tables.inbox, { connection });
    closers.push(() => queue.obliterate({ force: true }).then(() => queue.close()));
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    events.length = 0;
    expect(workerErrors.splice(0)).toEqual([]);
  });

  const relay = (extra: Record<string, unknown> = {}) =>
    bullmqRelay({ inbox: f.inbox, queue, providers: ['stripe'], ...extra });
  const events: InboxEvent[] = [];
  const worker = (
    handler: InboxHandler<unknown> = book(connected, f.tables),
    options: Partial<WorkerOptions> = {},
  ) => {
    const processor = bullmqProcessor({
      inbox: f.inbox,
      store: f.store as never,
      handlers: { stripe: handler },
      visibilityTimeoutSeconds: 2,
      onEvent: (event) => void events.push(event),
    });
    const w = new Worker<QueuedDelivery, ConsumeOutcome>(queue.name, processor, {
      connection,
      ...options,
    });
    w.on('error', (error) => void workerErrors.push(error));
    closers.push(() => w.close());
    return w;
  };
  /** Polls until the job is completed or failed (bounded), and returns it as stored. */
  const finished = async (jobId: string): Promise<Job<QueuedDelivery, ConsumeOutcome>> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      // The state first, then the job: a job read before it finished would show no result.
      const state = await queue.getJobState(jobId);
      const job = await queue.getJob(jobId);
      if (job && (state === 'completed' || state === 'failed')) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${state}`);
      await sleep(25);
    }
  };
  const handedOff = async (externalId: string) => {
    const stored = await f.inbox.find('stripe', externalId);
    if (!stored) throw new Error(`${externalId} is not stored`);
    return jobIdOf(stored);
  };

  it('relay → queue → processor: the handler runs once, the delivery is done, the job holds only its reference', async () => {
    for (const id of ['evt_1', 'evt_2']) await f.enqueue(id);
    expect(await relay().runOnce()).toBe(2);
    const [first, second] = [await handedOff('evt_1'), await handedOff('evt_2')];
    const queued = await queue.getJob(first);
    expect(queued).toMatchObject({ name: 'stripe', id: first });
    // The lease count under both names for one minor version (`attempts`: the name before).
    expect(queued!.data).toEqual({
      id: 1,
      provider: 'stripe',
      externalId: 'evt_1',
      leases: 1,
      attempts: 1,
    });
    expect(queued!.opts).toMatchObject({ attempts: DEFAULT_JOB_OPTIONS.attempts });
    worker();
    expect((await finished(first)).returnvalue).toBe('processed');
    expect((await finished(second)).returnvalue).toBe('processed');
    expect((await f.effects()).map((e) => e.id)).toEqual(['evt_1', 'evt_2']);
    expect((await f.inbox.list()).map((d) => d.status)).toEqual(['done', 'done']);
    expect(await relay().runOnce()).toBe(0);
  });

  it('a second job for the same delivery, run while the first holds its receipt, gives the delivery back instead of booking twice', async () => {
    await f.enqueue('evt_1');
    expect(await relay().runOnce()).toBe(1);
    const first = await handedOff('evt_1');
    const { data } = (await queue.getJob(first))!;
    await queue.add('stripe', data, { jobId: 'redelivered-evt_1', attempts: 3 });
    let runs = 0;
    const slow: InboxHandler<unknown> = async (delivery, context) => {
      runs++;
      await sleep(500); // holds the receipt while the other job runs
      return book(connected, f.tables)(delivery, context);
    };
    worker(slow, { concurrency: 2 });
    const results = [await finished(first), await finished('redelivered-evt_1')];
    // The other job gives the delivery back; or, where its give-back waits for the running job's
    // transaction (SQLite's one connection), finds it already done by that transaction: nothing to give back.
    const outcomes = results.map((job) => job.returnvalue);
    const other = outcomes.filter((outcome) => outcome !== 'processed');
    expect(outcomes).toContain('processed');
    expect(other).toEqual([expect.stringMatching(/^(given-back|skipped)$/)]);
    // Waiting for the other run's receipt used up no BullMQ attempt.
    expect(results.map((job) => job.attemptsMade)).toEqual([1, 1]);
    expect(events.filter((e) => e.type === 'given-back')).toHaveLength(
      other[0] === 'given-back' ? 1 : 0,
    );
    expect(runs).toBe(1);
    expect(await f.effects()).toEqual([{ id: 'evt_1', writtenBy: process.pid }]);
    // Whichever settled the delivery last (done, or given back to be handed over again), the
    // relay finishes it: a job handed over again is replayed from the receipt.
    const deadline = Date.now() + 10_000;
    let stored = await f.inbox.find('stripe', 'evt_1');
    while (stored?.status !== 'done' && Date.now() < deadline) {
      if ((await relay().runOnce()) > 0) await finished(await handedOff('evt_1'));
      else await sleep(100);
      stored = await f.inbox.find('stripe', 'evt_1');
    }
    expect(stored?.status).toBe('done');
    const completed = (await queue.getCompleted()).map((job) => job.returnvalue);
    expect(completed.filter((outcome) => outcome === 'processed')).toHaveLength(1);
    expect(runs).toBe(1);
    expect(await f.effects()).toHaveLength(1);
  });

  it('a job run again after its delivery finished (BullMQ redelivering it) is skipped, not booked again', async () => {
    await f.enqueue('evt_1');
    await relay().runOnce();
    worker();
    const first = await finished(await handedOff('evt_1'));
    expect(first.returnvalue).toBe('processed');
    await queue.add('stripe', first.data, { jobId: 'again-evt_1' });
    expect((await finished('again-evt_1')).returnvalue).toBe('skipped');
    expect(await f.effects()).toHaveLength(1);
  });

  it('a delivery handed over again after the handoff timeout runs once: the stale job is skipped', async () => {
    await f.enqueue('evt_1');
    const r = relay({ handoffTimeoutSeconds: 1 });
    expect(await r.runOnce()).toBe(1);
    const stale = await handedOff('evt_1');
    const job = (await queue.getJob(stale))!;
    await sleep(1100);
    // Still waiting in the queue: a backlog, the lease is extended and nothing is handed over.
    expect(await r.runOnce()).toBe(0);
    // Lost from the queue (its data comes back later under another id): a lapse.
    await queue.remove(stale);
    await sleep(1100);
    expect(await r.runOnce()).toBe(1);
    await queue.add('stripe', job.data, { jobId: stale });
    const fresh = await handedOff('evt_1');
    expect(fresh).not.toBe(stale);
    worker();
    expect((await finished(stale)).returnvalue).toBe('skipped');
    expect((await finished(fresh)).returnvalue).toBe('processed');
    expect(await f.effects()).toHaveLength(1);
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('done');
  });

  it('a handler failing once is retried by BullMQ; its first write rolled back, it books once', async () => {
    await f.enqueue('evt_1');
    await relay({ jobOptions: { backoff: { type: 'fixed', delay: 50 } } }).runOnce();
    let calls = 0;
    worker(async (delivery, context) => {
      await book(connected, f.tables)(delivery, context);
      if (++calls === 1) throw new Error('the ledger is busy');
      return 'ok';
    });
    const job = await finished(await handedOff('evt_1'));
    expect(job).toMatchObject({ returnvalue: 'processed', attemptsMade: 2 });
    expect(calls).toBe(2);
    expect(await f.effects()).toHaveLength(1);
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('done');
  });

  it('a handler failing on every attempt ends dead in the inbox with its error, and the job failed', async () => {
    await f.enqueue('evt_1');
    await relay({ jobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 20 } } }).runOnce();
    let calls = 0;
    worker(async (delivery, context) => {
      calls++;
      await book(connected, f.tables)(delivery, context);
      throw new Error('card declined');
    });
    const job = await finished(await handedOff('evt_1'));
    expect(job).toMatchObject({ attemptsMade: 3, failedReason: 'card declined' });
    expect(calls).toBe(3);
    expect(await f.effects()).toEqual([]);
    expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'dead',
      lastError: 'Error: card declined',
    });
    const receipt = await f.store.find(new RequestKey('stripe', 'evt_1'), { now: Date.now() });
    expect(receipt?.status).not.toBe('completed');
  });

  it('a job not made by the relay fails at once with InvalidInboxJob, naming what is wrong, and is not retried', async () => {
    let calls = 0;
    worker(async () => {
      calls++;
    });
    await queue.add('stripe', { id: 1, provider: 'stripe', externalId: 'evt_1' } as never, {
      jobId: 'foreign',
      attempts: 5,
    });
    const job = await finished('foreign');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toBe(
      'Job foreign is not an inbox delivery: job.data.leases must be a lease (>= 1), got undefined',
    );
    expect(calls).toBe(0);
  });
});
