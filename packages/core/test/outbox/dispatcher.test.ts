/**
 * The outbox dispatcher over InMemoryInbox as its store (the outbox table's stand-in, on a clock
 * the test moves), its rows recorded by `Outbox.add`: a message sent is done, a failure retried
 * after its backoff and dead at `maxFailures`, a permanent refusal dead at once, a row that cannot
 * be sent dead without a send, every attempt with the same key; the events for each.
 */
import { InMemoryInbox } from '../../src/inbox';
import {
  createOutboxDispatcher,
  type OutboxDispatcherOptions,
  type OutboxEvent,
  type OutboxSender,
  PermanentSendFailure,
  type SendInput,
} from '../../src/outbox';
import { keyOf, outboxInto } from './support';

let time: number;
let inbox: InMemoryInbox;
let events: OutboxEvent[];
let record: ReturnType<typeof outboxInto>['record'];

beforeEach(() => {
  time = Date.UTC(2026, 0, 1);
  inbox = new InMemoryInbox({ now: () => time });
  events = [];
  ({ record } = outboxInto(inbox));
});

const dispatcher = (
  senders: Record<string, OutboxSender>,
  extra: Partial<OutboxDispatcherOptions> = {},
) =>
  createOutboxDispatcher({
    outbox: inbox,
    senders,
    onEvent: (event) => void events.push(event),
    ...extra,
  });

/** A sender that records what each attempt got, then does what `then` says. */
function recording(then: (input: SendInput) => Promise<void> = async () => undefined) {
  const inputs: SendInput[] = [];
  const sender: OutboxSender = (input) => {
    inputs.push(input);
    return then(input);
  };
  return { inputs, sender };
}

const refund = { name: 'refund', sender: 'http', payload: { amount: 500, currency: 'eur' } };

it('sends a recorded message once, with its key, name, receipt and payload, and marks it done', async () => {
  const key = await record('evt_1', refund);
  expect(key).toBe(keyOf('evt_1', 'refund'));
  const { inputs, sender } = recording();
  const d = dispatcher({ http: sender });
  expect(d.state).toBe('idle');
  expect(await d.runOnce()).toBe(1);
  expect(inputs).toEqual([
    {
      key,
      name: 'refund',
      payload: { amount: 500, currency: 'eur' },
      receipt: { provider: 'stripe', externalId: 'evt_1' },
      attempt: 1,
      signal: expect.any(AbortSignal),
    },
  ]);
  expect(inputs[0]!.signal.aborted).toBe(false);
  expect(await inbox.find('http', key)).toMatchObject({ status: 'done', failures: 0 });
  const message = {
    id: 1,
    sender: 'http',
    key,
    name: 'refund',
    receipt: { provider: 'stripe', externalId: 'evt_1' },
  };
  expect(events).toEqual([{ type: 'sent', message, attempt: 1 }]);
  // Done: never sent again.
  expect(await d.runOnce()).toBe(0);
  expect(inputs).toHaveLength(1);
});

it('leases only the messages of its senders', async () => {
  await record('evt_1', refund);
  const emailKey = await record('evt_1', { name: 'receipt', sender: 'email', payload: {} });
  const { inputs, sender } = recording();
  expect(await dispatcher({ email: sender }).runOnce()).toBe(1);
  expect(inputs.map((i) => i.key)).toEqual([emailKey]);
  expect(await inbox.find('http', keyOf('evt_1', 'refund'))).toMatchObject({ status: 'pending' });
});

it('retries a failed send after its backoff with the same key, then buries it at maxFailures', async () => {
  const key = await record('evt_1', refund);
  const { inputs, sender } = recording(async () => {
    throw new Error('connection reset');
  });
  const d = dispatcher({ http: sender }, { maxFailures: 3, backoffBaseMs: 100, random: () => 0 });
  expect(await d.runOnce()).toBe(1);
  // The first failure waits half of the base (no jitter added); the second, half of twice that.
  expect(events).toEqual([
    expect.objectContaining({ type: 'retry', delayMs: 50, error: 'Error: connection reset' }),
  ]);
  expect(await inbox.find('http', key)).toMatchObject({
    status: 'pending',
    failures: 1,
    lastError: 'Error: connection reset',
    availableAt: new Date(time + 50),
  });
  time += 49;
  expect(await d.runOnce()).toBe(0);
  time += 1;
  expect(await d.runOnce()).toBe(1);
  expect(events[1]).toMatchObject({ type: 'retry', delayMs: 100 });
  time += 100;
  expect(await d.runOnce()).toBe(1);
  expect(events.map((e) => e.type)).toEqual(['retry', 'retry', 'dead']);
  expect(events[2]).toMatchObject({ type: 'dead', error: 'Error: connection reset' });
  expect(inputs.map((i) => [i.key, i.attempt])).toEqual([
    [key, 1],
    [key, 2],
    [key, 3],
  ]);
  expect(await inbox.find('http', key)).toMatchObject({ status: 'dead', failures: 3 });
  time += 3_600_000;
  expect(await d.runOnce()).toBe(0);
});

it('buries a message its sender refuses for good at once, with the refusal as its error', async () => {
  const key = await record('evt_1', refund);
  const { inputs, sender } = recording(async () => {
    throw new PermanentSendFailure('POST https://api.example/refunds answered 400: bad currency');
  });
  expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
  const error = 'PermanentSendFailure: POST https://api.example/refunds answered 400: bad currency';
  expect(events).toEqual([expect.objectContaining({ type: 'dead', error })]);
  expect(await inbox.find('http', key)).toMatchObject({
    status: 'dead',
    failures: 1,
    lastError: error,
  });
  expect(inputs).toHaveLength(1);
});

it('a PermanentSendFailure of another copy of core (known by its name) is dead at once too', async () => {
  const key = await record('evt_1', refund);
  class PermanentSendFailure extends Error {
    override name = 'PermanentSendFailure';
  }
  const sender: OutboxSender = async () => {
    throw new PermanentSendFailure('refused');
  };
  expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
  expect(await inbox.find('http', key)).toMatchObject({
    status: 'dead',
    lastError: 'PermanentSendFailure: refused',
  });
});

it('a sender that throws at once (not a rejected promise) is a failure like any other', async () => {
  await record('evt_1', refund);
  const sender = (() => {
    throw new TypeError('not a function');
  }) as unknown as OutboxSender;
  expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
  expect(events).toEqual([
    expect.objectContaining({ type: 'retry', error: 'TypeError: not a function' }),
  ]);
});

describe('a row that cannot be sent is dead at once, its sender never called', () => {
  const row = (body: string, headers: Record<string, string>) =>
    inbox.enqueue({
      provider: 'http',
      externalId: 'k-1',
      orderingKey: null,
      headers,
      body: Buffer.from(body),
    });
  const recorded = {
    'effect-name': 'refund',
    'receipt-provider': 'stripe',
    'receipt-id': 'evt_1',
  };

  it('a payload that is not JSON', async () => {
    await row('{"amount": 5', recorded);
    const { inputs, sender } = recording();
    expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
    expect(inputs).toEqual([]);
    const dead = await inbox.find('http', 'k-1');
    expect(dead).toMatchObject({ status: 'dead' });
    expect(dead!.lastError).toMatch(
      /^IdempotencyError: Invalid outbox message: the payload is not JSON: .+ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID/i,
    );
    expect(events).toEqual([
      {
        type: 'dead',
        message: {
          id: 1,
          sender: 'http',
          key: 'k-1',
          name: 'refund',
          receipt: { provider: 'stripe', externalId: 'evt_1' },
        },
        error: dead!.lastError,
      },
    ]);
  });

  it('a row without the headers Outbox.add writes', async () => {
    await row('{}', { 'effect-name': 'refund' });
    const { inputs, sender } = recording();
    expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
    expect(inputs).toEqual([]);
    expect((await inbox.find('http', 'k-1'))!.lastError).toContain(
      'the row has no receipt-provider, receipt-id header',
    );
  });
});

it('a message whose dispatcher died holding it for its last allowed time is dead without another send', async () => {
  const key = await record('evt_1', refund);
  // A dispatcher leases it and dies: its lease runs out, and the next lease call counts a failure.
  await inbox.lease({ providers: ['http'], limit: 1, leaseMs: 1000 });
  time += 1000;
  const { inputs, sender } = recording();
  expect(await dispatcher({ http: sender }, { maxFailures: 1 }).runOnce()).toBe(1);
  expect(inputs).toEqual([]);
  expect(events).toEqual([
    expect.objectContaining({
      type: 'dead',
      error: expect.stringMatching(/^LeaseExpired: dead after 1 failures/),
    }),
  ]);
  expect(await inbox.find('http', key)).toMatchObject({ status: 'dead', failures: 2 });
});

it('a message taken over after a dispatcher died is sent again under the same key, its attempt counted', async () => {
  const key = await record('evt_1', refund);
  await inbox.lease({ providers: ['http'], limit: 1, leaseMs: 1000 });
  time += 1000;
  const { inputs, sender } = recording();
  expect(await dispatcher({ http: sender }).runOnce()).toBe(1);
  expect(inputs.map((i) => [i.key, i.attempt])).toEqual([[key, 2]]);
  expect(events).toEqual([expect.objectContaining({ type: 'sent', attempt: 2 })]);
});

it('an observer that throws changes nothing', async () => {
  const key = await record('evt_1', refund);
  const d = createOutboxDispatcher({
    outbox: inbox,
    senders: { http: async () => undefined },
    onEvent: () => {
      throw new Error('the log is down');
    },
  });
  expect(await d.runOnce()).toBe(1);
  expect(await inbox.find('http', key)).toMatchObject({ status: 'done' });
});

it('a lease call that fails is reported and leases nothing', async () => {
  class FailingLeases extends InMemoryInbox {
    override async lease(): Promise<never> {
      throw new Error('connection refused');
    }
  }
  const d = createOutboxDispatcher({
    outbox: new FailingLeases(),
    senders: { http: async () => undefined },
    onEvent: (event) => void events.push(event),
  });
  expect(await d.runOnce()).toBe(0);
  expect(events).toEqual([
    { type: 'store-error', operation: 'lease', error: 'Error: connection refused' },
  ]);
});

it('a send whose lease was taken over meanwhile writes nothing, and says so once: lease-lost', async () => {
  const key = await record('evt_1', refund);
  const d = dispatcher({
    http: async () => {
      // This dispatcher stalls past its lease; another one takes the message over.
      time += 60_001;
      await inbox.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
    },
  });
  expect(await d.runOnce()).toBe(1);
  expect(events).toEqual([{ type: 'lease-lost', message: expect.objectContaining({ key }) }]);
  expect(await inbox.find('http', key)).toMatchObject({ status: 'processing', leases: 2 });
});

it('a write that ends a lease and fails in the store is reported; the lease is left to run out', async () => {
  class FailingCompletes extends InMemoryInbox {
    override async complete(): Promise<boolean> {
      throw new Error('the connection was lost');
    }
  }
  const outbox = new FailingCompletes({ now: () => time });
  const key = await outboxInto(outbox).record('evt_1', refund);
  const d = createOutboxDispatcher({
    outbox,
    senders: { http: async () => undefined },
    onEvent: (event) => void events.push(event),
  });
  expect(await d.runOnce()).toBe(1);
  expect(events).toEqual([
    { type: 'store-error', operation: 'complete', error: 'Error: the connection was lost' },
  ]);
  expect(await outbox.find('http', key)).toMatchObject({ status: 'processing', leases: 1 });
});
