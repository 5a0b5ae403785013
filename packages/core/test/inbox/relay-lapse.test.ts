/**
 * The relay asks its queue before it takes any handoff over, on an in-memory inbox whose clock the
 * test moves: a lease that runs out between the relay's read of the lapsed handoffs and its claim
 * is not taken over by that claim (a second job for a delivery the queue still holds), but asked
 * about in the next round.
 */
import { type HandoffState, type QueuedDelivery, createInboxRelay } from '../../src/adapter';
import { type InboxEvent, InMemoryInbox } from '../../src/inbox';

const START = Date.UTC(2026, 0, 1);
const HANDOFF_MS = 1000;

/** An in-memory inbox whose `lapsed` read is followed by `afterRead` (the clock moving on). */
class SlowReadInbox extends InMemoryInbox {
  afterRead = () => {};
  override async lapsed(input: Parameters<InMemoryInbox['lapsed']>[0]) {
    const found = await super.lapsed(input);
    this.afterRead();
    return found;
  }
}

function fixture(state: () => HandoffState) {
  let time = START;
  const inbox = new SlowReadInbox({ now: () => time });
  const sent: QueuedDelivery[] = [];
  const asked: QueuedDelivery[] = [];
  const events: InboxEvent[] = [];
  const relay = createInboxRelay({
    inbox,
    providers: ['stripe'],
    handoffTimeoutSeconds: HANDOFF_MS / 1000,
    maxHandoffs: 2,
    send: async (jobs) => void sent.push(...jobs),
    inspect: async (jobs) => {
      asked.push(...jobs);
      return jobs.map(state);
    },
    onEvent: (e) => void events.push(e),
  });
  const advance = (ms: number) => {
    time += ms;
  };
  return { inbox, relay, sent, asked, events, advance };
}

const delivery = (externalId: string) => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

it('a lease that runs out between the read of lapsed handoffs and the claim is asked about first, never taken over unasked', async () => {
  const f = fixture(() => 'queued');
  await f.inbox.enqueue(delivery('evt_1'));
  expect(await f.relay.runOnce()).toBe(1);
  // Just before the handoff timeout: nothing has lapsed when the relay reads, everything has by
  // the time it claims.
  f.advance(HANDOFF_MS - 1);
  f.inbox.afterRead = () => f.advance(2);
  expect(await f.relay.runOnce()).toBe(0);
  f.inbox.afterRead = () => {};
  expect(f.sent.map((j) => j.leases)).toEqual([1]);
  expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({
    status: 'processing',
    leases: 1,
    failures: 0,
  });
  // The next round asks the queue, which still has the job: extended, not handed over again.
  expect(await f.relay.runOnce()).toBe(0);
  expect(f.asked.map((j) => j.leases)).toEqual([1]);
  expect(f.sent).toHaveLength(1);
  expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({ leases: 1, failures: 0 });
});

it('a lease extended after the relay read it as lapsed (another relay sent it late) is not taken over, whatever the queue answers', async () => {
  let extendDuring = true;
  const f = fixture(() => 'missing');
  await f.inbox.enqueue(delivery('evt_1'));
  expect(await f.relay.runOnce()).toBe(1);
  f.advance(HANDOFF_MS + 1);
  // After the read and before the claim, the lease is extended under the same lease.
  f.inbox.afterRead = () => {
    if (extendDuring) void f.inbox.extend([f.sent[0]!], { leaseMs: HANDOFF_MS });
    extendDuring = false;
  };
  expect(await f.relay.runOnce()).toBe(0);
  expect(f.sent).toHaveLength(1);
  expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({ leases: 1, failures: 0 });
});

it.each(['missing', 'failed', 'completed'] as const)(
  'a handoff whose job the queue reports %s is taken over: a failure counted, handed over again under a new lease',
  async (state) => {
    const f = fixture(() => state);
    await f.inbox.enqueue(delivery('evt_1'));
    expect(await f.relay.runOnce()).toBe(1);
    f.advance(HANDOFF_MS + 1);
    expect(await f.relay.runOnce()).toBe(1);
    expect(f.sent.map((j) => j.leases)).toEqual([1, 2]);
    expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'processing',
      leases: 2,
      failures: 1,
      lastError: expect.stringMatching(/^LeaseExpired: /),
    });
    // Out of handoffs (maxHandoffs 2) and no receipt: dead, not sent a third time.
    f.advance(HANDOFF_MS + 1);
    await f.relay.runOnce();
    expect(f.sent).toHaveLength(2);
    expect(await f.inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'dead', failures: 3 });
    expect(f.events.filter((e) => e.type === 'dead')).toHaveLength(1);
  },
);
