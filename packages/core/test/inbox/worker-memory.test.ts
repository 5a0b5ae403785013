/**
 * The inbox worker without SQL: InMemoryInbox for the deliveries (on a clock the test moves) and
 * InMemoryStore for the receipts. Each delivery's handler runs once, a failure is retried after
 * its backoff and dead-lettered at the limit, and stop() gives unfinished work back uncharged.
 */
import { InMemoryStore } from '../../src';
import {
  createInboxWorker,
  DeliveryStatus,
  type InboxEvent,
  type InboxHandler,
  InMemoryInbox,
} from '../../src/inbox';

describe('the inbox worker on InMemoryInbox and InMemoryStore', () => {
  let time: number;
  let inbox: InMemoryInbox;
  let store: InMemoryStore;
  let events: InboxEvent[];

  beforeEach(() => {
    time = Date.UTC(2026, 0, 1);
    inbox = new InMemoryInbox({ now: () => time });
    store = new InMemoryStore();
    events = [];
  });

  const enqueue = (externalId: string) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ id: externalId })),
    });
  const worker = (handler: InboxHandler, extra = {}) =>
    createInboxWorker({
      inbox,
      store,
      handlers: { stripe: handler },
      onEvent: (event) => void events.push(event),
      ...extra,
    });

  it('runs each delivery once and marks it done; its receipt holds the result', async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    const handler = jest.fn(async (delivery: { body: Buffer }) => ({
      booked: JSON.parse(delivery.body.toString('utf8')).id,
    }));
    expect(await worker(handler).runOnce()).toBe(3);
    expect(handler).toHaveBeenCalledTimes(3);
    expect((await inbox.list()).map((d) => d.status)).toEqual(['done', 'done', 'done']);
    expect(
      await store.find({ provider: 'stripe', externalId: 'evt_2' }, { now: Date.now() }),
    ).toMatchObject({ status: 'completed', response: '{"booked":"evt_2"}' });
    expect(events.map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
    // Stored again by a provider retrying: a duplicate, nothing runs.
    expect(await enqueue('evt_1')).toBe(false);
    expect(await worker(handler).runOnce()).toBe(0);
    expect(handler).toHaveBeenCalledTimes(3);
  });

  it('retries a failure after its backoff, then buries the delivery at maxFailures', async () => {
    await enqueue('evt_poison');
    const handler = jest.fn(async () => {
      throw new Error('bad payload');
    });
    const w = worker(handler, { maxFailures: 2, backoffBaseMs: 1000, random: () => 0 });
    expect(await w.runOnce()).toBe(1);
    const retry = events[0] as Extract<InboxEvent, { type: 'retry' }>;
    expect(retry).toMatchObject({ type: 'retry', error: 'Error: bad payload' });
    expect(retry.delayMs).toBeGreaterThan(0);
    expect(await inbox.find('stripe', 'evt_poison')).toMatchObject({
      status: DeliveryStatus.PENDING,
      leases: 1,
      failures: 1,
      availableAt: new Date(time + retry.delayMs),
    });
    // Not due before its backoff has passed.
    time += retry.delayMs - 1;
    expect(await w.runOnce()).toBe(0);
    time += 1;
    expect(await w.runOnce()).toBe(1);
    expect(handler).toHaveBeenCalledTimes(2);
    expect(await inbox.find('stripe', 'evt_poison')).toMatchObject({
      status: DeliveryStatus.DEAD,
      leases: 2,
      failures: 2,
      lastError: 'Error: bad payload',
    });
    expect(events.map((e) => e.type)).toEqual(['retry', 'dead']);
    time += 3_600_000;
    expect(await w.runOnce()).toBe(0);
  });

  it('stop() past its timeout gives a running delivery back at once, free of charge; the next worker runs it once', async () => {
    await enqueue('evt_slow');
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow: InboxHandler = (_delivery, { signal }) =>
      new Promise((_resolve, reject) => {
        started();
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const w = worker(slow, { pollIntervalMs: 5 });
    w.start();
    await running;
    await w.stop({ timeoutMs: 50 });
    expect(w.running).toBe(false);
    expect(events).toEqual([expect.objectContaining({ type: 'given-back', reason: 'shutdown' })]);
    expect(await inbox.find('stripe', 'evt_slow')).toMatchObject({
      status: DeliveryStatus.PENDING,
      leases: 1,
      failures: 0,
      lastError: null,
    });
    const again = jest.fn(async () => 'ok');
    expect(await worker(again).runOnce()).toBe(1);
    expect(again).toHaveBeenCalledTimes(1);
    expect(await inbox.find('stripe', 'evt_slow')).toMatchObject({
      status: DeliveryStatus.DONE,
      failures: 0,
    });
  });
});
