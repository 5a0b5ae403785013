/**
 * Route sets on the guard's engine and in inbox mode, on the in-memory stores: which route takes
 * an event (exact, longest prefix, catch-all), the unrouted policies, Standard Schema checks (zod)
 * before any claim over HTTP, and in inbox mode filtering at the endpoint, schema failures buried
 * at once by the worker and by the queue consumer, and redelivered after a fix.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { z } from 'zod';
import { type HttpRequest, InMemoryStore } from '../../src';
import { createEngine, createInboxConsumer, createInboxEngine } from '../../src/adapter';
import { createInboxWorker, type InboxEvent, InMemoryInbox } from '../../src/inbox';
import { type EventPreset, flushIgnored, routes, validated } from '../../src/routing';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A preset of a made-up provider whose body names its event in `type` (verified by a header). */
const shop: EventPreset = {
  provider: 'shop',
  key: (request) => JSON.parse(String(request.rawBody)).id,
  verify: (request) => request.headers['x-sig'] === 'good',
  eventType: (request) => JSON.parse(String(request.rawBody)).type,
  needsRawBody: true,
  retentionDays: 7,
};

function request(body: object, sig = 'good'): HttpRequest {
  const rawBody = Buffer.from(JSON.stringify(body));
  const headers = { 'content-type': 'application/json', 'x-sig': sig };
  return { method: 'POST', url: '/hook', headers, rawBody, body: undefined, native: {} };
}

const Order = z.object({ id: z.string(), data: z.object({ cents: z.number().int() }) });

describe('a route set on the engine', () => {
  it('takes each event by its most specific route: exact, then the longest prefix, then the catch-all', async () => {
    const taken: string[] = [];
    const preset = routes(shop, {
      'order.paid': () => taken.push('exact'),
      'order.*': () => taken.push('order.*'),
      'order.refund.*': () => taken.push('order.refund.*'),
      '*': (_event, { event }) => taken.push(`* ${event}`),
    });
    const engine = createEngine({ store: new InMemoryStore(), preset });
    for (const [id, type] of [
      ['1', 'order.paid'],
      ['2', 'order.shipped'],
      ['3', 'order.refund.issued'],
      ['4', 'customer.created'],
    ])
      expect(await engine.begin(request({ id, type }))).toMatchObject({ action: 'respond' });
    expect(taken).toEqual(['exact', 'order.*', 'order.refund.*', '* customer.created']);
  });

  it("reports a failed write of the store's ignored counts as a store-error event, for as long as the engine lives", async () => {
    const store = new InMemoryStore();
    Object.assign(store, { addIgnored: () => Promise.reject(new Error('counts table missing')) });
    const events: string[] = [];
    const engine = createEngine({
      store,
      preset: routes(shop, { 'order.paid': () => 'ran' }),
      onEvent: (event) =>
        events.push(event.type === 'store-error' ? `store-error ${event.operation}` : event.type),
    });
    await engine.begin(request({ id: 'i', type: 'other' }));
    // The tally holds the engine's listener weakly: a collection must not take it while the engine lives.
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await flushIgnored(store).catch(() => undefined);
    expect(events).toEqual(['ignored', 'store-error addIgnored']);
  });

  it('answers an unrouted event by its policy: ignore (nothing claimed), record (a receipt, nothing run), refuse (422, nothing claimed)', async () => {
    const store = new InMemoryStore();
    const events: string[] = [];
    const engineFor = (unrouted: 'ignore' | 'record' | 'refuse') =>
      createEngine({
        store,
        preset: routes(shop, { 'order.paid': () => 'ran' }, { unrouted }),
        onEvent: (event) => events.push(event.type),
      });
    const ignored = await engineFor('ignore').begin(request({ id: 'i', type: 'other' }));
    expect(ignored).toMatchObject({ action: 'respond', response: { status: 200 } });
    expect(await store.find({ provider: 'shop', externalId: 'i' }, { now: Date.now() })).toBeNull();
    expect(events).toEqual(['ignored']);
    const recorded = await engineFor('record').begin(request({ id: 'r', type: 'other' }));
    expect(recorded).toMatchObject({ action: 'respond', response: { status: 200 } });
    expect(
      await store.find({ provider: 'shop', externalId: 'r' }, { now: Date.now() }),
    ).toMatchObject({ status: 'completed' });
    const refused = await engineFor('refuse').begin(request({ id: 'f', type: 'other' }));
    expect(refused).toMatchObject({ action: 'respond', response: { status: 422 } });
    if (refused.action !== 'respond') throw new Error('unreachable');
    expect(JSON.parse(refused.response.body.toString()).code).toBe(
      'ERR_IDEMPOTENCY_EVENT_UNROUTED',
    );
    expect(await store.find({ provider: 'shop', externalId: 'f' }, { now: Date.now() })).toBeNull();
    expect(events.at(-1)).toBe('refused');
  });

  it("checks a route's zod schema before any claim: 422 with the issues, nothing stored; the handler gets the schema's output", async () => {
    const store = new InMemoryStore();
    const got: number[] = [];
    const preset = routes(shop, {
      'order.paid': validated(
        Order.transform((order) => order.data.cents / 100),
        (euros) => {
          got.push(euros);
          return { euros };
        },
      ),
    });
    const engine = createEngine({ store, preset });
    const bad = await engine.begin(request({ id: 'b', type: 'order.paid', data: { cents: 'x' } }));
    if (bad.action !== 'respond') throw new Error('expected an answer');
    expect(bad.response.status).toBe(422);
    expect(JSON.parse(bad.response.body.toString())).toMatchObject({
      code: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
      issues: [expect.stringMatching(/^data\.cents: /)],
    });
    expect(await store.find({ provider: 'shop', externalId: 'b' }, { now: Date.now() })).toBeNull();
    const good = await engine.begin(
      request({ id: 'g', type: 'order.paid', data: { cents: 1250 } }),
    );
    if (good.action !== 'respond') throw new Error('expected an answer');
    expect(JSON.parse(good.response.body.toString())).toEqual({ euros: 12.5 });
    expect(got).toEqual([12.5]);
  });

  it('refuses a forged request before routing it (401), and a table with a bad entry at construction', async () => {
    const engine = createEngine({
      store: new InMemoryStore(),
      preset: routes(shop, { '*': () => 1 }),
    });
    const forged = await engine.begin(request({ id: 'x', type: 'a' }, 'bad'));
    expect(forged).toMatchObject({ action: 'respond', response: { status: 401 } });
    expect(() => routes(shop, { 'order.paid': 42 as never })).toThrow(/routes\.order\.paid/);
    expect(() => routes(shop, { '*': () => 1 }, { unrouted: 'drop' as never })).toThrow(/unrouted/);
  });
});

describe('a route set in inbox mode', () => {
  let inbox: InMemoryInbox;
  let store: InMemoryStore;
  let events: InboxEvent[];
  beforeEach(() => {
    inbox = new InMemoryInbox();
    store = new InMemoryStore();
    events = [];
  });

  it('the endpoint acknowledges an unrouted event without storing it, and counts it as ignored', async () => {
    const preset = routes(shop, { 'order.paid': () => undefined });
    const engine = createInboxEngine({ inbox, preset, onEvent: (e) => void events.push(e) });
    const ignored = await engine.accept(request({ id: 'n', type: 'customer.created' }));
    expect(ignored).toMatchObject({ action: 'respond', stored: false, response: { status: 200 } });
    expect(await inbox.list()).toEqual([]);
    expect(events).toEqual([{ type: 'ignored', provider: 'shop', event: 'customer.created' }]);
    const stored = await engine.accept(request({ id: 'p', type: 'order.paid' }));
    expect(stored).toMatchObject({ stored: true });
  });

  it('the worker runs the route once; a payload its schema refuses is dead at once with the issues, and runs after a fixed deploy and a redelivery', async () => {
    const preset = routes(shop, { 'order.paid': validated(Order, (order) => order.data.cents) });
    const engine = createInboxEngine({ inbox, preset });
    await engine.accept(request({ id: 'ok', type: 'order.paid', data: { cents: 5 } }));
    await engine.accept(request({ id: 'bad', type: 'order.paid', data: { cents: 'five' } }));
    const worker = createInboxWorker({ inbox, store, handlers: { shop: preset }, maxFailures: 10 });
    expect(await worker.runOnce()).toBe(2);
    const bad = await inbox.find('shop', 'bad');
    expect(bad).toMatchObject({ status: 'dead', attempts: 1 });
    expect(bad?.lastError).toMatch(/^PayloadInvalid: .*data\.cents: /);
    expect(await inbox.find('shop', 'ok')).toMatchObject({ status: 'done' });
    // The fix is deployed (a schema that takes text too), and the operator redelivers.
    const ran: unknown[] = [];
    const fixed = routes(shop, { 'order.paid': (event) => void ran.push(event) });
    expect(await inbox.redeliver('shop', 'bad', { status: 'dead', attempts: 1 })).toBe(true);
    const after = createInboxWorker({ inbox, store, handlers: { shop: fixed } });
    expect(await after.runOnce()).toBe(1);
    expect(ran).toEqual([{ id: 'bad', type: 'order.paid', data: { cents: 'five' } }]);
    expect(await inbox.find('shop', 'bad')).toMatchObject({ status: 'done' });
  });

  it("the queue consumer (pg-boss, BullMQ) buries a payload its schema refuses on the job's first attempt", async () => {
    const preset = routes(shop, { 'order.paid': validated(Order, () => undefined) });
    await createInboxEngine({ inbox, preset }).accept(
      request({ id: 'q', type: 'order.paid', data: {} }),
    );
    const consumer = createInboxConsumer({ inbox, store, handlers: { shop: preset } });
    const [job] = await inbox.leaseRefs({ providers: ['shop'], limit: 1, leaseMs: 60_000 });
    await expect(consumer.process(job!, { final: false })).rejects.toMatchObject({
      code: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
    });
    expect(await inbox.find('shop', 'q')).toMatchObject({ status: 'dead' });
  });
});
