/**
 * The outbox dispatcher's parts working together, on jest's fake clock (the outbox's InMemoryInbox
 * reads it too, or a clock of its own where the test makes the store's time run ahead): a send
 * that hangs is abandoned at `sendTimeoutMs` and retried; a long send keeps its lease; a lease
 * taken over mid-send is reported lost once; at most `concurrency` sends run at once; stop() lets
 * a send end within its timeout, gives back the ones still going past it and what a blocked lease
 * call leases afterwards, none of them charged.
 */
import { InMemoryInbox, type LeaseInput } from '../../src/inbox';
import {
  createOutboxDispatcher,
  type OutboxDispatcherOptions,
  type OutboxEvent,
  type OutboxSender,
} from '../../src/outbox';
import { deferred, outboxInto } from './support';

const START = Date.UTC(2026, 0, 1);

/** An outbox table whose lease calls can be held at a gate. */
class GatedInbox extends InMemoryInbox {
  leaseGate: Promise<void> | undefined;
  override async lease(input: LeaseInput) {
    await this.leaseGate;
    return super.lease(input);
  }
}

/** Tracks whether `promise` has settled. */
function watch(promise: Promise<unknown>) {
  const state = { done: false };
  void promise.finally(() => {
    state.done = true;
  });
  return state;
}

let inbox: GatedInbox;
let events: OutboxEvent[];
let record: ReturnType<typeof outboxInto>['record'];

/** Records `n` refunds, one per receipt `evt_1` … `evt_n`; resolves with their keys. */
async function recordRefunds(n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 1; i <= n; i++)
    keys.push(await record(`evt_${i}`, { name: 'refund', sender: 'http', payload: { i } }));
  return keys;
}

function useInbox(now: () => number) {
  inbox = new GatedInbox({ now });
  ({ record } = outboxInto(inbox));
}

beforeEach(() => {
  jest.useFakeTimers({ now: START });
  useInbox(() => Date.now());
  events = [];
});
afterEach(() => {
  jest.useRealTimers();
});

const dispatcher = (sender: OutboxSender, extra: Partial<OutboxDispatcherOptions> = {}) =>
  createOutboxDispatcher({
    outbox: inbox,
    senders: { http: sender },
    onEvent: (event) => void events.push(event),
    ...extra,
  });

/** A sender that never settles on its own, but rejects when its signal aborts. */
const heedsSignalOnly: OutboxSender = ({ signal }) =>
  new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );

it('abandons a send that hangs at sendTimeoutMs (its signal aborted) and retries it, a failure counted', async () => {
  const [key] = await recordRefunds(1);
  let seen: AbortSignal | undefined;
  const d = dispatcher(
    ({ signal }) => {
      seen = signal;
      // Ignores its signal: the dispatcher must stop waiting all the same.
      return new Promise(() => {});
    },
    { sendTimeoutMs: 500, backoffBaseMs: 100, random: () => 0 },
  );
  const ran = watch(d.runOnce());
  await jest.advanceTimersByTimeAsync(499);
  expect(ran.done).toBe(false);
  expect(seen?.aborted).toBe(false);
  await jest.advanceTimersByTimeAsync(1);
  expect(ran.done).toBe(true);
  expect(seen?.reason).toMatchObject({ name: 'TimeoutError' });
  const error = 'TimeoutError: the sender did not finish within 500 ms (sendTimeoutMs)';
  expect(events).toEqual([expect.objectContaining({ type: 'retry', delayMs: 50, error })]);
  expect(await inbox.find('http', key!)).toMatchObject({
    status: 'pending',
    failures: 1,
    lastError: error,
  });
});

it('keeps the lease of a long send renewed, every third of the lease', async () => {
  const [key] = await recordRefunds(1);
  const d = dispatcher(() => new Promise((resolve) => setTimeout(resolve, 2200)), {
    visibilityTimeoutSeconds: 3,
    sendTimeoutMs: 2300,
  });
  const ran = d.runOnce();
  await jest.advanceTimersByTimeAsync(0);
  expect(await inbox.find('http', key!)).toMatchObject({ availableAt: new Date(START + 3000) });
  // Renewed at 1 s and at 2 s: the lease now runs to 5 s, past the 3 s it was leased for.
  await jest.advanceTimersByTimeAsync(2100);
  expect(await inbox.find('http', key!)).toMatchObject({
    status: 'processing',
    leases: 1,
    availableAt: new Date(START + 5000),
  });
  await jest.advanceTimersByTimeAsync(100);
  expect(await ran).toBe(1);
  expect(events.map((e) => e.type)).toEqual(['sent']);
  expect(await inbox.find('http', key!)).toMatchObject({ status: 'done' });
});

it('a lease taken over mid-send is reported lost once, when the renewal finds it; the late send writes nothing', async () => {
  let storeTime = START;
  useInbox(() => storeTime);
  const [key] = await recordRefunds(1);
  const gate = deferred();
  const started = deferred();
  const d = dispatcher(
    async () => {
      started.resolve();
      await gate.promise;
    },
    { visibilityTimeoutSeconds: 3, sendTimeoutMs: 2000 },
  );
  const ran = d.runOnce();
  await started.promise;
  // The store's clock runs past the lease (this dispatcher stalled), and another one takes it over.
  storeTime += 3001;
  expect(await inbox.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 })).toMatchObject([
    { externalId: key, leases: 2 },
  ]);
  await jest.advanceTimersByTimeAsync(1000);
  expect(events).toEqual([{ type: 'lease-lost', message: expect.objectContaining({ key }) }]);
  gate.resolve();
  expect(await ran).toBe(1);
  expect(events.map((e) => e.type)).toEqual(['lease-lost']);
  expect(await inbox.find('http', key!)).toMatchObject({ status: 'processing', leases: 2 });
});

it('runs at most `concurrency` sends at once, and leases more as sends end', async () => {
  const keys = await recordRefunds(5);
  const gates = new Map<string, () => void>();
  let active = 0;
  let most = 0;
  const d = dispatcher(
    ({ key }) =>
      new Promise<void>((resolve) => {
        most = Math.max(most, ++active);
        gates.set(key, () => {
          active--;
          resolve();
        });
      }),
    { concurrency: 2, pollIntervalMs: 50 },
  );
  d.start();
  expect(d.state).toBe('running');
  await jest.advanceTimersByTimeAsync(0);
  expect([...gates.keys()]).toEqual(keys.slice(0, 2));
  for (let sent = 0; sent < 5; sent++) {
    gates.get(keys[sent]!)!();
    // A few fake milliseconds: the loop's naps of 0 between two full lease calls are timers.
    await jest.advanceTimersByTimeAsync(10);
    expect([...gates.keys()]).toEqual(keys.slice(0, Math.min(5, sent + 3)));
  }
  expect([...gates.keys()]).toEqual(keys);
  expect(most).toBe(2);
  expect(events.map((e) => e.type)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  await d.stop();
  expect(d.state).toBe('stopped');
});

describe('stop()', () => {
  it('waits up to its timeout for the sends under way: one that ends in time is sent', async () => {
    const [key] = await recordRefunds(1);
    const d = dispatcher(() => new Promise((resolve) => setTimeout(resolve, 300)));
    d.start();
    await jest.advanceTimersByTimeAsync(0);
    const stopped = watch(d.stop({ timeoutMs: 1000 }));
    expect(d.state).toBe('stopping');
    await jest.advanceTimersByTimeAsync(300);
    expect(stopped.done).toBe(true);
    expect(d.state).toBe('stopped');
    expect(events.map((e) => e.type)).toEqual(['sent']);
    expect(await inbox.find('http', key!)).toMatchObject({ status: 'done' });
  });

  it('aborts the sends still going at its timeout and gives them back uncharged; started again, it sends them', async () => {
    const keys = await recordRefunds(2);
    const signals: AbortSignal[] = [];
    let hang = true;
    const d = dispatcher(async (input) => {
      signals.push(input.signal);
      if (hang) await heedsSignalOnly(input);
    });
    d.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(signals).toHaveLength(2);
    const stopped = watch(d.stop({ timeoutMs: 1000 }));
    await jest.advanceTimersByTimeAsync(999);
    expect(stopped.done).toBe(false);
    expect(signals.some((s) => s.aborted)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(stopped.done).toBe(true);
    expect(signals.map((s) => s.reason?.name)).toEqual(['AbortError', 'AbortError']);
    expect(events.map((e) => e.type)).toEqual(['given-back', 'given-back']);
    for (const key of keys)
      expect(await inbox.find('http', key)).toMatchObject({
        status: 'pending',
        failures: 0,
        lastError: null,
      });
    // The same dispatcher, started again, sends them under a signal of their own.
    hang = false;
    d.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(signals.slice(2).map((s) => s.aborted)).toEqual([false, false]);
    expect(events.slice(2)).toEqual([
      expect.objectContaining({ type: 'sent', attempt: 1 }),
      expect.objectContaining({ type: 'sent', attempt: 1 }),
    ]);
    await d.stop();
  });

  it('runOnce() after a stop that ended its sends sends again, under a signal of its own', async () => {
    const [key] = await recordRefunds(1);
    const signals: AbortSignal[] = [];
    let hang = true;
    const d = dispatcher(async (input) => {
      signals.push(input.signal);
      if (hang) await heedsSignalOnly(input);
    });
    d.start();
    await jest.advanceTimersByTimeAsync(0);
    const stopped = d.stop({ timeoutMs: 100 });
    await jest.advanceTimersByTimeAsync(100);
    await stopped;
    expect(events.map((e) => e.type)).toEqual(['given-back']);
    hang = false;
    expect(await d.runOnce()).toBe(1);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    expect(events.map((e) => e.type)).toEqual(['given-back', 'sent']);
    expect(await inbox.find('http', key!)).toMatchObject({ status: 'done' });
  });

  it('a lease call still blocked at stop() does not hold it past its timeout; what it leases afterwards goes back at once, never sent', async () => {
    const [key] = await recordRefunds(1);
    const gate = deferred();
    inbox.leaseGate = gate.promise;
    const sent: string[] = [];
    const d = dispatcher(async (input) => void sent.push(input.key));
    d.start();
    await jest.advanceTimersByTimeAsync(0);
    const stopped = watch(d.stop({ timeoutMs: 500 }));
    await jest.advanceTimersByTimeAsync(500);
    expect(stopped.done).toBe(true);
    expect(events).toEqual([
      {
        type: 'store-error',
        operation: 'lease',
        error: expect.stringContaining('stop: the lease call was still waiting'),
      },
    ]);
    gate.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(events.slice(1)).toEqual([expect.objectContaining({ type: 'given-back' })]);
    expect(sent).toEqual([]);
    expect(await inbox.find('http', key!)).toMatchObject({
      status: 'pending',
      leases: 1,
      failures: 0,
    });
  });
});
