/**
 * InMemoryInbox: the inbox-store suite on its own clock and on an injected one, the suite shown to
 * catch broken stores, then what only the in-memory store promises (copies in and out, the clock
 * it is given, its options).
 */
import {
  type DeliveryLease,
  type InboxStore,
  InMemoryInbox,
  type NewDelivery,
} from '../../src/inbox';
import {
  type InboxConformanceHarness,
  inboxConformanceCases,
  runInboxCase,
  runInboxStoreConformance,
} from '../../src/testing';

runInboxStoreConformance({
  name: 'InMemoryInbox',
  makeInbox: () => ({ inbox: new InMemoryInbox() }),
});

const START = Date.UTC(2026, 0, 1);

/** An InMemoryInbox on a clock the test moves. */
function onTestClock(make = (now: () => number) => new InMemoryInbox({ now })) {
  let time = START;
  const now = () => time;
  return {
    inbox: make(now),
    clock: {
      now,
      advance: (ms: number) => {
        time += ms;
      },
    },
  } satisfies InboxConformanceHarness;
}

runInboxStoreConformance({ name: 'InMemoryInbox on a test clock', makeInbox: () => onTestClock() });

const delivery = (externalId: string, extra: Partial<NewDelivery> = {}): NewDelivery => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(`{"id":"${externalId}"}`),
  ...extra,
});

describe('the inbox-store suite rejects broken stores', () => {
  const byName = (fragment: string) => {
    const found = inboxConformanceCases.find((c) => c.name.includes(fragment));
    if (!found) throw new Error(`no case named like ${fragment}`);
    return found;
  };

  /** Completes whatever lease it is shown: a write fenced by the id alone. */
  class UnfencedInbox extends InMemoryInbox {
    override async complete(lease: DeliveryLease): Promise<boolean> {
      const [current] = await this.list({ afterId: lease.id - 1, limit: 1 });
      return current ? super.complete({ id: lease.id, leases: current.leases }) : false;
    }
  }

  /** A lease call that reads the due deliveries but never keeps them leased (a SELECT without its UPDATE). */
  class ForgetfulInbox extends InMemoryInbox {
    override async lease(input: Parameters<InMemoryInbox['lease']>[0]) {
      const leased = await super.lease(input);
      for (const d of leased) await this.giveBack(d, { delayMs: 0 });
      return leased;
    }
  }

  /** A listing that ignores the received-time bounds (a store that predates them). */
  class RangeBlindInbox extends InMemoryInbox {
    override async list(input: Parameters<InMemoryInbox['list']>[0] = {}) {
      const { receivedFrom: _from, receivedBefore: _before, ...rest } = input;
      return super.list(rest);
    }
  }

  /**
   * A redeliver that takes whatever finished delivery it finds, as stores did before the contract
   * carried the state seen: it reads the status and leases itself and writes against those.
   */
  class BlindRedeliverInbox extends InMemoryInbox {
    override async redeliver(provider: string, externalId: string): Promise<boolean> {
      const now = await this.find(provider, externalId);
      if (now?.status !== 'dead' && now?.status !== 'done') return false;
      return super.redeliver(provider, externalId, { status: now.status, leases: now.leases });
    }
  }

  it('a redeliver that ignores the state seen fails the compare-and-set cases: a done delivery would go back to pending', async () => {
    for (const fragment of ['run to done meanwhile stays done', 'died again on a later attempt']) {
      const testCase = byName(fragment);
      await expect(
        runInboxCase(
          testCase,
          onTestClock((now) => new BlindRedeliverInbox({ now })),
        ),
      ).rejects.toThrow();
      await expect(runInboxCase(testCase, onTestClock())).resolves.toBeUndefined();
    }
  });

  it('a listing that ignores receivedFrom and receivedBefore fails the time-range case', async () => {
    const testCase = byName('list filters by received time');
    await expect(
      runInboxCase(
        testCase,
        onTestClock((now) => new RangeBlindInbox({ now })),
      ),
    ).rejects.toThrow();
    await expect(runInboxCase(testCase, onTestClock())).resolves.toBeUndefined();
  });

  it('a complete fenced by the id alone fails the fencing case', async () => {
    const fenced = byName('complete is fenced by the lease');
    await expect(
      runInboxCase(
        fenced,
        onTestClock((now) => new UnfencedInbox({ now })),
      ),
    ).rejects.toThrow();
    await expect(runInboxCase(fenced, onTestClock())).resolves.toBeUndefined();
  });

  it('a lease call that keeps no lease fails the lease case: deliveries handed out twice', async () => {
    const testCase = byName('never hands one out twice');
    await expect(
      runInboxCase(
        testCase,
        onTestClock((now) => new ForgetfulInbox({ now })),
      ),
    ).rejects.toThrow();
    await expect(runInboxCase(testCase, onTestClock())).resolves.toBeUndefined();
  });
});

describe('InMemoryInbox', () => {
  it('copies bodies and headers in: a caller changing what it enqueued changes nothing stored', async () => {
    const inbox = new InMemoryInbox();
    const body = Buffer.from('{"id":"evt_1"}');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    await inbox.enqueue(delivery('evt_1', { body, headers }));
    body.fill(0x78);
    headers['content-type'] = 'text/plain';
    headers['x-added'] = 'later';
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored!.body.toString()).toBe('{"id":"evt_1"}');
    expect(stored!.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('copies them out: a caller changing what it read changes nothing stored', async () => {
    const inbox = new InMemoryInbox();
    await inbox.enqueue(delivery('evt_1'));
    const [claimed] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    claimed!.body.fill(0x78);
    (claimed!.headers as Record<string, string>)['content-type'] = 'text/plain';
    const found = await inbox.find('stripe', 'evt_1');
    found!.body.fill(0x79);
    const again = await inbox.find('stripe', 'evt_1');
    expect(again!.body.toString()).toBe('{"id":"evt_1"}');
    expect(again!.headers).toEqual({ 'content-type': 'application/json' });
    expect(again!.body).not.toBe(found!.body);
  });

  it('reads every time from the clock it is given: received, due, leased until, finished, purged', async () => {
    const { inbox, clock } = onTestClock();
    await inbox.enqueue(delivery('evt_1'));
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
      receivedAt: new Date(START),
      availableAt: new Date(START),
    });
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 1000 });
    expect((await inbox.find('stripe', 'evt_1'))!.availableAt).toEqual(new Date(START + 1000));
    clock.advance(999);
    expect(await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 })).toEqual([]);
    // Due at its lease's end, as a database's `available_at <= now` is.
    clock.advance(1);
    expect(await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 })).toHaveLength(1);
    expect(await inbox.complete(leased!)).toBe(true);
    expect((await inbox.find('stripe', 'evt_1'))!.finishedAt).toEqual(new Date(START + 1000));
    clock.advance(4999);
    expect(await inbox.purge({ olderThanMs: 5000 })).toBe(0);
    clock.advance(1);
    expect(await inbox.purge({ olderThanMs: 5000 })).toBe(1);
  });

  it('refuses, as SqlInbox does, a key part no store can hold and a lease call of more than 1000', async () => {
    const inbox = new InMemoryInbox();
    await expect(inbox.enqueue(delivery(''))).rejects.toMatchObject({
      name: 'InvalidRequestKey',
    });
    await expect(inbox.enqueue(delivery('a\u0000b'))).rejects.toMatchObject({
      name: 'InvalidRequestKey',
    });
    await expect(
      inbox.enqueue(delivery('evt_1', { orderingKey: 'x'.repeat(161) })),
    ).rejects.toMatchObject({ name: 'InvalidRequestKey' });
    await expect(
      inbox.lease({ providers: ['stripe'], limit: 1001, leaseMs: 1000 }),
    ).rejects.toMatchObject({ option: 'limit' });
    await expect(inbox.purge({ olderThanMs: 0, chunkSize: 0 })).rejects.toMatchObject({
      option: 'chunkSize',
    });
    expect(await inbox.list()).toEqual([]);
  });

  it('refuses unknown and invalid options, naming them', () => {
    expect(() => new InMemoryInbox({ now: 5 as never })).toThrow(
      expect.objectContaining({ option: 'now' }),
    );
    expect(() => new InMemoryInbox({ clock: Date.now } as never)).toThrow(
      expect.objectContaining({ option: 'clock' }),
    );
  });

  it('writes in no receipts store transaction: no completerFor, no batcherFor', () => {
    const inbox: InboxStore = new InMemoryInbox();
    expect(inbox.completerFor).toBeUndefined();
    expect(inbox.batcherFor).toBeUndefined();
  });
});
