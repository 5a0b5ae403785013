/**
 * A delivery's lease count is `leases`; its old name `attempts` (a receipt's word for handler
 * starts) keeps working for one minor version: an inbox store written before the rename (that
 * returns and reads `attempts` alone) still runs under the worker, the relay and the consumer;
 * queue jobs carry both names, and a job queued before the rename (`attempts` alone) is still
 * consumed.
 */
import { IdempotencyGuard, InMemoryStore, RequestKey } from '../../src';
import {
  type ConsumeOutcome,
  createInboxConsumer,
  createInboxRelay,
  InvalidJobData,
  type QueuedDelivery,
  queuedDeliveryOf,
} from '../../src/adapter';
import {
  createInboxWorker,
  type DeliveryLease,
  type GiveBackEventName,
  type InboxEvent,
  type InboxStore,
  InMemoryInbox,
} from '../../src/inbox';

const READS = new Set(['lease', 'leaseRefs', 'claim', 'claimRefs', 'lapsed', 'find', 'list']);
const FENCED = new Set(['complete', 'retry', 'giveBack', 'bury']);

/** Drops `leases` from what a store returns: the shape of a delivery before the rename. */
const withoutLeases = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutLeases);
  if (typeof value !== 'object' || value === null) return value;
  const { leases: _leases, ...rest } = value as Record<string, unknown>;
  return rest;
};

/**
 * `inbox` as a store written before the rename: its deliveries carry `attempts` alone, and it
 * fences by the `attempts` of the lease it is given (an undefined one fences nothing).
 */
function storeBeforeTheRename(inbox: InMemoryInbox): InboxStore {
  return new Proxy(inbox, {
    get(target, name, receiver) {
      const method = Reflect.get(target, name, receiver) as unknown;
      if (typeof method !== 'function') return method;
      const call = method as (...args: unknown[]) => Promise<unknown>;
      if (READS.has(String(name)))
        return async (...args: unknown[]) => withoutLeases(await call.apply(target, args));
      if (FENCED.has(String(name)))
        return (lease: DeliveryLease, ...rest: unknown[]) =>
          call.call(target, { id: lease.id, attempts: lease.attempts }, ...rest);
      return call.bind(target);
    },
  });
}

const delivery = (externalId: string) => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

it('the worker runs and completes the deliveries of a store that knows only attempts; its events carry both names', async () => {
  const inbox = new InMemoryInbox();
  await inbox.enqueue(delivery('evt_1'));
  const events: InboxEvent[] = [];
  const ran: Array<[string, number]> = [];
  const worker = createInboxWorker({
    inbox: storeBeforeTheRename(inbox),
    store: new InMemoryStore(),
    handlers: { stripe: async (d) => void ran.push([d.externalId, d.leases]) },
    onEvent: (e) => void events.push(e),
  });
  expect(await worker.runOnce()).toBe(1);
  // The handler reads the new name, whatever the store returned.
  expect(ran).toEqual([['evt_1', 1]]);
  expect(events).toEqual([
    {
      type: 'processed',
      delivery: expect.objectContaining({ externalId: 'evt_1', leases: 1, attempts: 1 }),
      replayed: false,
    },
  ]);
  expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', leases: 1 });
});

it('the relay hands over, and takes back from its queue, the deliveries of a store that knows only attempts; each job under both names', async () => {
  let time = Date.UTC(2026, 0, 1);
  const inbox = new InMemoryInbox({ now: () => time });
  await inbox.enqueue(delivery('evt_1'));
  const sent: QueuedDelivery[] = [];
  const relay = createInboxRelay({
    inbox: storeBeforeTheRename(inbox),
    providers: ['stripe'],
    handoffTimeoutSeconds: 1,
    send: async (jobs) => void sent.push(...jobs),
    // The queue lost the job: the relay takes the lapsed handoff over by the lease it read.
    inspect: async (jobs) => jobs.map(() => 'missing'),
  });
  expect(await relay.runOnce()).toBe(1);
  time += 1001;
  expect(await relay.runOnce()).toBe(1);
  expect(sent).toEqual([
    expect.objectContaining({ externalId: 'evt_1', leases: 1, attempts: 1 }),
    expect.objectContaining({ externalId: 'evt_1', leases: 2, attempts: 2 }),
  ]);
});

describe('a queue job', () => {
  const job = { id: 1, provider: 'stripe', externalId: 'evt_1' };
  const field = (data: unknown) => {
    try {
      queuedDeliveryOf(data);
      return undefined;
    } catch (error) {
      return error instanceof InvalidJobData ? error.option : error;
    }
  };

  it('names its lease by leases, or by attempts alone when queued before the rename', () => {
    expect(queuedDeliveryOf({ ...job, leases: 2 })).toEqual({ ...job, leases: 2, attempts: 2 });
    expect(queuedDeliveryOf({ ...job, attempts: 2 })).toEqual({ ...job, leases: 2, attempts: 2 });
    expect(queuedDeliveryOf({ ...job, leases: 2, attempts: 2 })).toMatchObject({ leases: 2 });
  });

  it('is refused naming the field: no lease, a bad one under either name, or the two disagreeing', () => {
    expect(field(job)).toBe('job.data.leases');
    expect(field({ ...job, leases: 0 })).toBe('job.data.leases');
    expect(field({ ...job, attempts: 0 })).toBe('job.data.attempts');
    expect(field({ ...job, leases: 2, attempts: 1 })).toBe('job.data.leases');
  });

  it('queued before the rename is consumed: its handler runs once and its delivery is done', async () => {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const [ref] = await inbox.leaseRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    const ran: string[] = [];
    const consumer = createInboxConsumer({
      inbox,
      store: new InMemoryStore(),
      handlers: { stripe: async (d) => void ran.push(d.externalId) },
    });
    const old = { id: ref!.id, provider: 'stripe', externalId: 'evt_1', attempts: 1 };
    expect(await consumer.process(old as QueuedDelivery, { final: false })).toBe('processed');
    expect(ran).toEqual(['evt_1']);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
  });
});

describe('an inbox store written before lease and leaseRefs (claim and claimRefs, their names before)', () => {
  /** `inbox` without `lease` and `leaseRefs`: what a store of your own had before the rename. */
  const claimOnly = (inbox: InMemoryInbox): InboxStore =>
    new Proxy(inbox, {
      get(target, name, receiver) {
        if (name === 'lease' || name === 'leaseRefs') return undefined;
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  it('still runs under the worker, through its claim', async () => {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const ran: string[] = [];
    const worker = createInboxWorker({
      inbox: claimOnly(inbox),
      store: new InMemoryStore(),
      handlers: { stripe: async (d) => void ran.push(d.externalId) },
    });
    expect(await worker.runOnce()).toBe(1);
    expect(ran).toEqual(['evt_1']);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
  });

  it('still hands deliveries to a relay, through its claimRefs', async () => {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const sent: QueuedDelivery[] = [];
    const relay = createInboxRelay({
      inbox: claimOnly(inbox),
      providers: ['stripe'],
      send: async (jobs) => void sent.push(...jobs),
    });
    expect(await relay.runOnce()).toBe(1);
    expect(sent).toEqual([expect.objectContaining({ externalId: 'evt_1', leases: 1 })]);
  });

  it('InMemoryInbox keeps claim and claimRefs as deprecated names of lease and leaseRefs', async () => {
    const inbox = new InMemoryInbox();
    for (const id of ['evt_1', 'evt_2']) await inbox.enqueue(delivery(id));
    const input = { providers: ['stripe'], limit: 1, leaseMs: 60_000 };
    expect(await inbox.claim(input)).toMatchObject([{ externalId: 'evt_1', leases: 1 }]);
    expect(await inbox.claimRefs(input)).toMatchObject([{ externalId: 'evt_2', leases: 1 }]);
    expect(await inbox.lease(input)).toEqual([]);
  });

  it('a store with neither lease nor claim is refused, naming the inbox', () => {
    const inbox = new Proxy(new InMemoryInbox(), {
      get: (target, name) =>
        name === 'lease' || name === 'claim' || name === 'leaseRefs' || name === 'claimRefs'
          ? undefined
          : Reflect.get(target, name),
    });
    const worker = () =>
      createInboxWorker({
        inbox,
        store: new InMemoryStore(),
        handlers: { stripe: async () => {} },
      });
    expect(worker).toThrow(expect.objectContaining({ option: 'inbox' }));
    const relay = () => createInboxRelay({ inbox, providers: ['stripe'], send: async () => {} });
    expect(relay).toThrow(expect.objectContaining({ option: 'inbox' }));
  });
});

describe('a job given back while another run holds its receipt', () => {
  it("resolves 'given-back'; 'released', its name before, is still a ConsumeOutcome (jobs completed before the upgrade keep it)", async () => {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const [ref] = await inbox.leaseRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    const store = new InMemoryStore();
    // Another run holds the receipt, fresh: a consumer that died mid-job.
    await new IdempotencyGuard(store).claim(new RequestKey('stripe', 'evt_1'));
    const consumer = createInboxConsumer({ inbox, store, handlers: { stripe: async () => {} } });
    const outcome: ConsumeOutcome = await consumer.process(ref!, { final: false });
    expect(outcome).toBe('given-back');
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending', failures: 0 });
    const completedBefore: ConsumeOutcome = 'released';
    expect(['given-back', 'released']).toContain(completedBefore);
  });
});

describe("the give-back event: 'given-back', and 'released' (its name before) for one minor version", () => {
  /** A consumer's job given back while another run holds its receipt, and what `onEvent` saw. */
  async function givenBack(options: { giveBackEvent?: GiveBackEventName } = {}) {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const [ref] = await inbox.leaseRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    const store = new InMemoryStore();
    await new IdempotencyGuard(store).claim(new RequestKey('stripe', 'evt_1'));
    const events: InboxEvent[] = [];
    const consumer = createInboxConsumer({
      inbox,
      store,
      handlers: { stripe: async () => {} },
      onEvent: (event) => events.push(event),
      ...options,
    });
    await consumer.process(ref!, { final: false });
    return events.filter((e) => e.type === 'given-back' || e.type === 'released');
  }

  it("emits one 'given-back' event, and no 'released'", async () => {
    expect(await givenBack()).toEqual([
      expect.objectContaining({ type: 'given-back', reason: 'in-progress' }),
    ]);
  });

  it("emits one 'released' event instead under the deprecated giveBackEvent: 'released'", async () => {
    expect(await givenBack({ giveBackEvent: 'released' })).toEqual([
      expect.objectContaining({ type: 'released', reason: 'in-progress' }),
    ]);
  });

  it('refuses any other name with a ConfigError naming the option, on the worker and the consumer', () => {
    const inbox = new InMemoryInbox();
    const store = new InMemoryStore();
    const giveBackEvent = 'returned' as GiveBackEventName;
    const handlers = { stripe: async () => {} };
    expect(() => createInboxWorker({ inbox, store, handlers, giveBackEvent })).toThrow(
      expect.objectContaining({ option: 'giveBackEvent' }),
    );
    expect(() => createInboxConsumer({ inbox, store, handlers, giveBackEvent })).toThrow(
      expect.objectContaining({ option: 'giveBackEvent' }),
    );
  });
});
