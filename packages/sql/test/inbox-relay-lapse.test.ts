/**
 * What the relay does when a handoff's timeout passes, over SqlInbox and a real SqlStore: it asks
 * the queue first (`inspect`): a job still queued or running is a backlog, its lease extended
 * without counting a failure; a missing or finished one is a lapse. Before burying a delivery
 * whose handoffs lapsed `maxHandoffs` times it reads the receipt: a completed one means done.
 */
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import type { InboxEvent } from '@webhook-idempotency/core/inbox';
import {
  createInboxRelay,
  type HandoffState,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { connectionKinds, type OpenedKind } from './helpers/kinds';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The relay's logic is dialect-free; its reads (claimRefs, lapsed) are covered on every kind by
// the inbox-store conformance suite (inbox-store.test.ts).
const KINDS = connectionKinds('inbox_lapse').filter(([name]) =>
  ['pg Pool', 'better-sqlite3 file'].includes(name),
);

describe.each(KINDS)('the relay at a handoff timeout (%s)', (_name, open) => {
  let opened: OpenedKind;
  let n = 0;
  let inbox: SqlInbox;
  let store: SqlStore;
  let events: InboxEvent[];
  let queue: QueuedDelivery[];

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    n++;
    await InboxSchema.createTable(opened.db, { table: `lapse_inbox_${n}` });
    await Schema.createTable(opened.db, { table: `lapse_receipts_${n}` });
    inbox = new SqlInbox(opened.db, { table: `lapse_inbox_${n}` });
    store = new SqlStore(opened.db, { table: `lapse_receipts_${n}` });
    events = [];
    queue = [];
    await inbox.enqueue({
      provider: 'stripe',
      externalId: 'evt_1',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  });

  const relay = (extra = {}) =>
    createInboxRelay({
      inbox,
      providers: ['stripe'],
      handoffTimeoutSeconds: 1,
      maxHandoffs: 2,
      send: async (jobs) => void queue.push(...jobs),
      onEvent: (event) => void events.push(event),
      ...extra,
    });

  it('a job the queue still has (queued, then active) keeps its lease: no failure, no new handoff', async () => {
    const asked: QueuedDelivery[] = [];
    let state: HandoffState = 'queued';
    const r = relay({
      inspect: async (jobs: readonly QueuedDelivery[]) => {
        asked.push(...jobs);
        return jobs.map(() => state);
      },
    });
    expect(await r.runOnce()).toBe(1);
    for (const next of ['queued', 'active'] as const) {
      state = next;
      await sleep(1100);
      expect(await r.runOnce()).toBe(0);
    }
    expect(asked).toEqual([queue[0], queue[0]]);
    expect(queue).toHaveLength(1);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'processing',
      leases: 1,
      failures: 0,
      lastError: null,
    });
    // The queue lost it: now it is a lapse, handed over again under a new lease.
    state = 'missing';
    await sleep(1100);
    expect(await r.runOnce()).toBe(1);
    expect(queue.map((job) => job.leases)).toEqual([1, 2]);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ leases: 2, failures: 1 });
  });

  it('an inspect that fails takes nothing over that round, and says so', async () => {
    const r = relay({
      inspect: async () => {
        throw new Error('queue unreachable');
      },
    });
    expect(await r.runOnce()).toBe(1);
    await sleep(1100);
    expect(await r.runOnce()).toBe(0);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'store-error', operation: 'inspect' }),
    );
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ leases: 1, failures: 0 });
  });

  it('a delivery out of handoffs whose receipt shows the handler committed is done, not dead', async () => {
    const r = relay({
      store,
      inspect: async (jobs: readonly unknown[]) => jobs.map(() => 'failed'),
    });
    expect(await r.runOnce()).toBe(1);
    // The handler committed (its receipt is completed), but marking the delivery was lost.
    await new IdempotencyGuard(store).run(new RequestKey('stripe', 'evt_1'), () => 'booked');
    for (let lapse = 1; lapse <= 2; lapse++) {
      await sleep(1100);
      expect(await r.runOnce()).toBe(1);
    }
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
    expect(events.filter((e) => e.type === 'dead')).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'processed', replayed: true }));
  });
});
