/**
 * A worker outage longer than the relay's handoff budget (maxHandoffs × handoffTimeoutSeconds) on
 * a real Redis: the jobs wait in BullMQ, the relay asks the queue about each lapsed handoff and
 * extends it instead of counting a failure, and once a worker starts every delivery is processed
 * exactly once; none is dead that never ran. A job BullMQ lost is still a lapse.
 */
import type { InboxEvent } from '@webhook-idempotency/core/inbox';
import {
  type ConsumeOutcome,
  jobIdOf,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import { Queue, Worker } from 'bullmq';
import { bullmqProcessor, bullmqRelay } from '../src';
import { book, connect, type Connected, type Fixture, fixture, targets } from './helpers/fixture';
import { redisConnection } from './helpers/redis';

const connection = redisConnection();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DELIVERIES = 5;
// The queue's side is what is under test: one database is enough (the inbox-store conformance
// suite covers each dialect's reads).
const openPostgres = targets('bullmq_outage')[0]![1];

let connected: Connected;
let f: Fixture;
let queue: Queue<QueuedDelivery>;
const events: InboxEvent[] = [];

beforeAll(async () => {
  connected = connect(await openPostgres());
});
afterAll(() => connected.close());
beforeEach(async () => {
  f = await fixture(connected, 'bqo');
  queue = new Queue(f.tables.inbox, { connection });
  events.length = 0;
});
afterEach(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

const relay = () =>
  bullmqRelay({
    inbox: f.inbox,
    queue,
    store: f.store,
    providers: ['stripe'],
    handoffTimeoutSeconds: 1,
    maxHandoffs: 2,
    pollIntervalMs: 100,
    onEvent: (e) => void events.push(e),
  });
const count = async (status: string) =>
  (await f.inbox.list({ status: status as never, limit: 1000 })).length;

it('jobs waiting out a worker outage longer than maxHandoffs × handoffTimeoutSeconds are extended, not buried: each runs once', async () => {
  const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i}`);
  for (const id of ids) await f.enqueue(id);
  const r = relay();
  r.start();
  let worker: Worker<QueuedDelivery, ConsumeOutcome> | undefined;
  try {
    // No worker for 4 s: four handoff timeouts, twice the budget of lapses.
    await sleep(4000);
    expect(await count('dead')).toBe(0);
    const first = (await f.inbox.find('stripe', 'evt_0'))!;
    expect(first).toMatchObject({ status: 'processing', attempts: 1, failures: 0 });
    expect(await queue.getJobState(jobIdOf(first))).toBe('waiting');

    const runs = new Map<string, number>();
    const booking = book(connected, f.tables);
    worker = new Worker<QueuedDelivery, ConsumeOutcome>(
      queue.name,
      bullmqProcessor({
        inbox: f.inbox,
        store: f.store as never,
        visibilityTimeoutSeconds: 2,
        handlers: {
          stripe: async (delivery, context) => {
            runs.set(delivery.externalId, (runs.get(delivery.externalId) ?? 0) + 1);
            return booking(delivery, context);
          },
        },
      }),
      { connection },
    );
    for (let i = 0; i < 400 && (await count('done')) < DELIVERIES; i++) await sleep(50);
    expect(await count('done')).toBe(DELIVERIES);
    expect(await count('dead')).toBe(0);
    expect([...runs.entries()].sort()).toEqual(ids.map((id) => [id, 1]));
    expect((await f.effects()).map((e) => e.id)).toEqual(ids);
    expect(events.filter((e) => e.type === 'dead')).toEqual([]);
    expect(events.filter((e) => e.type === 'queued')).toHaveLength(1);
  } finally {
    await r.stop();
    await worker?.close();
  }
});

it('a job BullMQ no longer has is a lapse: handed over again, and buried after maxHandoffs', async () => {
  await f.enqueue('evt_lost');
  const r = relay();
  for (let handoff = 1; handoff <= 2; handoff++) {
    expect(await r.runOnce()).toBe(1);
    const held = (await f.inbox.find('stripe', 'evt_lost'))!;
    await queue.remove(jobIdOf(held));
    await sleep(1100);
  }
  expect(await r.runOnce()).toBe(1);
  expect(await f.inbox.find('stripe', 'evt_lost')).toMatchObject({
    status: 'dead',
    lastError: expect.stringMatching(/^LeaseExpired: 2 handoffs/),
  });
});
