/**
 * Inbox mode with a batched preset, without any framework: the request verified once, then split
 * into one delivery per item (its body the item's JSON, the request's headers), each stored
 * idempotently under the item's id; a retry is a duplicate, a re-batch stores only its new item,
 * a store failing mid-batch loses nothing once the provider retries, and an item without an id
 * refuses the batch with nothing stored.
 */
import { type HttpRequest, InMemoryStore, type ProviderPreset } from '@webhook-idempotency/core';
import { createInboxEngine, type InboxDecision } from '@webhook-idempotency/core/adapter';
import {
  createInboxWorker,
  InMemoryInbox,
  type InboxEvent,
  type NewDelivery,
} from '@webhook-idempotency/core/inbox';
import { type EventPreset, routes } from '@webhook-idempotency/core/routes';

interface Event {
  readonly id?: string;
  readonly type?: string;
  readonly customer?: string;
  readonly n?: number;
}

/** A preset whose body is a JSON array of events keyed by `id`, signed by a header. */
const preset: ProviderPreset = {
  provider: 'batchy',
  keyDescription: 'id of each event',
  needsRawBody: true,
  retentionDays: 3,
  key: () => undefined,
  verify: (request) => request.headers['x-sig'] === 'good',
  items(request) {
    const events = JSON.parse(request.rawBody!.toString()) as unknown;
    if (!Array.isArray(events)) return undefined;
    return events.map((event: Event) => ({ key: event.id, value: event }));
  },
};

// Odd spacing: an item's stored body is its JSON, not a slice of these bytes.
const post = (events: readonly Event[], sig = 'good'): HttpRequest => ({
  method: 'POST',
  url: '/hook',
  headers: {
    'x-sig': sig,
    'content-type': 'text/plain',
    'user-agent': 'batchy/1',
    authorization: 'Bearer secret',
  },
  rawBody: Buffer.from(`[ ${events.map((event) => JSON.stringify(event)).join(' , ')} ]`),
  body: undefined,
  native: null,
});

const respond = (decision: InboxDecision) => {
  if (decision.action !== 'respond') throw new Error(`expected an answer, got ${decision.action}`);
  return decision;
};

const stored = async (inbox: InMemoryInbox) =>
  (await inbox.list()).map((row) => row.externalId).sort();

describe('inbox mode with a batched preset', () => {
  it('verifies once, stores each item under its id as its JSON with the request headers, a retry is a duplicate and a re-batch stores only its new item', async () => {
    const inbox = new InMemoryInbox();
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({ inbox, preset, onEvent: (event) => events.push(event) });
    const batch: Event[] = [
      { id: 'e1', n: 1 },
      { id: 'e2', n: 2 },
      { id: 'e1', n: 1 },
    ];

    const forged = respond(await engine.accept(post(batch, 'bad')));
    expect([forged.response.status, forged.stored]).toEqual([401, false]);
    expect(await inbox.list()).toEqual([]);

    const first = respond(await engine.accept(post(batch)));
    expect([first.response.status, first.stored]).toEqual([200, true]);
    expect(first.response.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await stored(inbox)).toEqual(['e1', 'e2']);
    const e2 = (await inbox.find('batchy', 'e2'))!;
    expect(e2.body.toString()).toBe('{"id":"e2","n":2}');
    expect(e2.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'batchy/1',
    });

    const retry = respond(await engine.accept(post(batch)));
    expect([retry.response.status, retry.stored]).toEqual([200, false]);
    expect(retry.response.headers['Idempotent-Replayed']).toBe('true');

    const rebatch = respond(await engine.accept(post([{ id: 'e2', n: 2 }, { id: 'e3' }])));
    expect([rebatch.stored, rebatch.response.headers['Idempotent-Replayed']]).toEqual([
      true,
      undefined,
    ]);
    expect(await stored(inbox)).toEqual(['e1', 'e2', 'e3']);
    expect((await inbox.find('batchy', 'e3'))!.body.toString()).toBe('{"id":"e3"}');
    const seen = events.filter((event) => event.type === 'stored' || event.type === 'duplicate');
    expect(
      seen.map((event) => `${event.type}:${'externalId' in event && event.externalId}`),
    ).toEqual([
      'stored:e1',
      'stored:e2',
      'duplicate:e1',
      'duplicate:e2',
      'duplicate:e2',
      'stored:e3',
    ]);
    const answered = events.filter((event) => event.type === 'answered');
    expect(answered.map((event) => 'externalId' in event && event.externalId)).toEqual([
      expect.stringMatching(/^batch:/),
      expect.stringMatching(/^batch:/),
      expect.stringMatching(/^batch:/),
    ]);
  });

  it('an item without a usable id is refused alone, as the guard refuses it: the others stored, the batch answered 400 naming it, every redelivery alike', async () => {
    const inbox = new InMemoryInbox();
    const engine = createInboxEngine({ inbox, preset });
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = respond(await engine.accept(post([{ id: 'e1' }, { n: 2 }, { id: 'e3' }])));
      expect([refused.response.status, refused.stored]).toEqual([400, attempt === 0]);
      const body = JSON.parse(refused.response.body.toString());
      expect(body.code).toBe('ERR_IDEMPOTENCY_KEY_MISSING');
      expect(body.message).toContain('batchy/item:1');
      expect(await stored(inbox)).toEqual(['e1', 'e3']);
    }
    const invalid = respond(await engine.accept(post([{ id: 'e4' }, { id: 'x'.repeat(300) }])));
    expect(JSON.parse(invalid.response.body.toString()).code).toBe('ERR_IDEMPOTENCY_KEY_INVALID');
    expect(await stored(inbox)).toEqual(['e1', 'e3', 'e4']);
  });

  it("a batch with no usable id at all is refused whole, nothing stored, or passed on with onMissingKey: 'passthrough'", async () => {
    const inbox = new InMemoryInbox();
    const refused = respond(await createInboxEngine({ inbox, preset }).accept(post([{ n: 1 }])));
    expect(refused.response.status).toBe(400);
    expect(
      respond(await createInboxEngine({ inbox, preset }).accept(post([]))).response.status,
    ).toBe(400);
    const passing = createInboxEngine({ inbox, preset, onMissingKey: 'passthrough' });
    expect(await passing.accept(post([{ n: 1 }, { n: 2 }]))).toEqual({ action: 'pass' });
    expect(await inbox.list()).toEqual([]);
  });

  it('a store failing between two items answers 503; the retry stores the rest, each item once', async () => {
    class Failing extends InMemoryInbox {
      failOn: string | undefined = 'e2';
      override enqueue(delivery: NewDelivery) {
        if (delivery.externalId === this.failOn)
          return Promise.reject(new Error('connection reset'));
        return super.enqueue(delivery);
      }
    }
    const inbox = new Failing();
    const engine = createInboxEngine({ inbox, preset });
    const batch = [{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }];
    const broken = respond(await engine.accept(post(batch)));
    expect(broken.response.status).toBe(503);
    expect(broken.response.headers['retry-after']).toBeDefined();
    expect(broken.response.body.toString()).not.toMatch(/connection reset/);
    expect(await stored(inbox)).toEqual(['e1']);

    inbox.failOn = undefined;
    const retried = respond(await engine.accept(post(batch)));
    expect([retried.response.status, retried.stored]).toEqual([200, true]);
    expect(await stored(inbox)).toEqual(['e1', 'e2', 'e3']);
  });

  it("stores each item's ordering key, read from the item's own bytes", async () => {
    const inbox = new InMemoryInbox();
    const engine = createInboxEngine({
      inbox,
      preset,
      orderingKey: (_native, raw) => (JSON.parse(raw.toString()) as Event).customer,
    });
    await engine.accept(
      post([
        { id: 'e1', customer: 'c1' },
        { id: 'e2', customer: 'c2' },
      ]),
    );
    expect((await inbox.find('batchy', 'e1'))!.orderingKey).toBe('c1');
    expect((await inbox.find('batchy', 'e2'))!.orderingKey).toBe('c2');
  });

  it('over the backlog budget: a batch with a new item is refused unstored, one whose items are all stored is a duplicate', async () => {
    const inbox = new InMemoryInbox();
    const engine = createInboxEngine({
      inbox,
      preset,
      backpressure: { maxPending: 2, refreshMs: 0 },
    });
    for (const id of ['e1', 'e2'])
      await inbox.enqueue({
        provider: 'batchy',
        externalId: id,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    const refused = respond(await engine.accept(post([{ id: 'e2' }, { id: 'e3' }])));
    expect(refused.response.status).toBe(503);
    expect(await stored(inbox)).toEqual(['e1', 'e2']);
    const duplicate = respond(await engine.accept(post([{ id: 'e2' }, { id: 'e1' }])));
    expect([duplicate.response.status, duplicate.stored]).toEqual([200, false]);
    expect(duplicate.response.headers['Idempotent-Replayed']).toBe('true');
  });

  it("a route set's worker runs each stored item by its own event name, with the item as its payload; the endpoint stores only routed items", async () => {
    const inbox = new InMemoryInbox();
    const ran: string[] = [];
    const typed: EventPreset = {
      ...preset,
      eventType: () => undefined,
      itemType: (item) => (item as Event).type,
    };
    const routed = routes(typed, {
      paid: (event, { event: name }) => void ran.push(`${name} ${(event as Event).id}`),
      'refund.*': (event, { event: name }) => void ran.push(`${name} ${(event as Event).id}`),
    });
    const engine = createInboxEngine({ inbox, preset: routed });
    const batch = [
      { id: 'e1', type: 'paid' },
      { id: 'e2', type: 'opened' },
      { id: 'e3', type: 'refund.issued' },
    ];
    expect(respond(await engine.accept(post(batch))).stored).toBe(true);
    expect(await stored(inbox)).toEqual(['e1', 'e3']);
    const worker = createInboxWorker({
      inbox,
      store: new InMemoryStore(),
      handlers: { batchy: routed },
    });
    expect(await worker.runOnce()).toBe(2);
    expect(ran).toEqual(['paid e1', 'refund.issued e3']);
  });
});
