/**
 * The inbox worker's parts working together, on InMemoryInbox and InMemoryStore, on jest's fake
 * clock (the inbox on a clock of its own where the test makes the store's time run ahead of the
 * worker's): a lease taken over while its handler still runs is reported lost once, when the
 * renewal finds it; a stop resolves by its deadline plus the grace even when a give-back hangs;
 * a lease call still blocked when stop() is called does not hold it up, and what it leases afterwards
 * goes back at once.
 */
import { InMemoryStore } from '../../src';
import {
  createInboxWorker,
  type DeliveryLease,
  type InboxEvent,
  type InboxHandler,
  InMemoryInbox,
} from '../../src/inbox';

const START = Date.UTC(2026, 0, 1);

/** An inbox whose lease calls can be held at a gate and whose give-backs can hang. */
class FaultyInbox extends InMemoryInbox {
  leaseGate: Promise<void> | undefined;
  hangGiveBacks = false;
  override async lease(input: Parameters<InMemoryInbox['lease']>[0]) {
    await this.leaseGate;
    return super.lease(input);
  }
  override giveBack(lease: DeliveryLease, input: Parameters<InMemoryInbox['giveBack']>[1]) {
    if (this.hangGiveBacks) return new Promise<boolean>(() => {});
    return super.giveBack(lease, input);
  }
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Tracks whether `promise` has settled. */
function watch(promise: Promise<unknown>) {
  const state = { done: false };
  void promise.finally(() => {
    state.done = true;
  });
  return state;
}

let time: number;
let inbox: FaultyInbox;
let events: InboxEvent[];

beforeEach(async () => {
  jest.useFakeTimers({ now: START });
  time = START;
  inbox = new FaultyInbox({ now: () => time });
  events = [];
  await inbox.enqueue({
    provider: 'stripe',
    externalId: 'evt_1',
    orderingKey: null,
    headers: {},
    body: Buffer.from('{}'),
  });
});
afterEach(() => {
  jest.useRealTimers();
});

const worker = (handler: InboxHandler, extra = {}) =>
  createInboxWorker({
    inbox,
    store: new InMemoryStore(),
    handlers: { stripe: handler },
    onEvent: (event) => void events.push(event),
    ...extra,
  });

it('a lease taken over while its handler runs is reported lost when the renewal finds it, and only then', async () => {
  const started = deferred();
  const gate = deferred();
  const w = worker(
    async () => {
      started.resolve();
      await gate.promise;
      return 'late';
    },
    { visibilityTimeoutSeconds: 3 },
  );
  const run = w.runOnce();
  await started.promise;
  // The store's clock runs past the lease (the worker stalled), and another worker takes it over.
  time += 3001;
  expect(await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 })).toMatchObject([
    { externalId: 'evt_1', leases: 2 },
  ]);
  expect(events).toEqual([]);
  // The next renewal (every third of the lease) finds it gone.
  await jest.advanceTimersByTimeAsync(1000);
  expect(events).toEqual([
    { type: 'lease-lost', delivery: expect.objectContaining({ externalId: 'evt_1', leases: 1 }) },
  ]);
  // The handler ends; its result is not recorded on the delivery, and the loss is not told twice.
  gate.resolve();
  expect(await run).toBe(1);
  expect(events.map((e) => e.type)).toEqual(['lease-lost']);
  expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'processing', leases: 2 });
});

it('stop() resolves by its deadline plus the grace when a run it ended cannot give its delivery back; it says so', async () => {
  const started = deferred();
  // A handler that ignores its signal and never settles.
  const w = worker(() => {
    started.resolve();
    return new Promise(() => {});
  });
  w.start();
  await jest.advanceTimersByTimeAsync(0);
  await started.promise;
  inbox.hangGiveBacks = true;
  const stopped = watch(w.stop({ timeoutMs: 1000 }));
  expect(w.running).toBe(false);
  await jest.advanceTimersByTimeAsync(999);
  expect(stopped.done).toBe(false);
  // The deadline: the run is ended, and its give-back hangs for the whole grace (2 s).
  await jest.advanceTimersByTimeAsync(2000);
  expect(stopped.done).toBe(false);
  await jest.advanceTimersByTimeAsync(1);
  expect(stopped.done).toBe(true);
  expect(events).toEqual([
    expect.objectContaining({
      type: 'store-error',
      operation: 'giveBack',
      delivery: expect.objectContaining({ externalId: 'evt_1' }),
    }),
  ]);
});

it('a lease call still blocked at stop() does not hold it past its deadline; what it leases afterwards goes back at once, uncharged', async () => {
  const ran: string[] = [];
  const gate = deferred();
  inbox.leaseGate = gate.promise;
  const w = worker(async (delivery) => void ran.push(delivery.externalId));
  w.start();
  await jest.advanceTimersByTimeAsync(0);
  const stopped = watch(w.stop({ timeoutMs: 500 }));
  await jest.advanceTimersByTimeAsync(500);
  expect(stopped.done).toBe(true);
  expect(events).toEqual([
    expect.objectContaining({
      type: 'store-error',
      operation: 'lease',
      error: expect.objectContaining({ message: expect.stringContaining('stop') }),
    }),
  ]);
  gate.resolve();
  await jest.advanceTimersByTimeAsync(0);
  expect(events.slice(1)).toEqual([
    expect.objectContaining({ type: 'given-back', reason: 'shutdown' }),
  ]);
  expect(ran).toEqual([]);
  expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
    status: 'pending',
    leases: 1,
    failures: 0,
  });
});

it('runOnce() after a stop that ended its runs runs again, under a signal of its own', async () => {
  const signals: AbortSignal[] = [];
  let hang = true;
  const w = worker(async (_delivery, { signal }) => {
    signals.push(signal);
    // The first run heeds only its signal: the stop's deadline ends it.
    if (hang)
      await new Promise<void>((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    return 'ok';
  });
  w.start();
  await jest.advanceTimersByTimeAsync(0);
  const stopped = w.stop({ timeoutMs: 100 });
  await jest.advanceTimersByTimeAsync(100);
  await stopped;
  expect(events.map((e) => e.type)).toEqual(['given-back']);
  hang = false;
  expect(await w.runOnce()).toBe(1);
  expect(signals.map((s) => s.aborted)).toEqual([true, false]);
  expect(events.map((e) => e.type)).toEqual(['given-back', 'processed']);
  expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', failures: 0 });
});
