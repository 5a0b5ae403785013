/**
 * SqlInbox (issue 12): the InboxStore contract on every kind of connection it accepts — stored
 * once, the exact bytes, leases that never overlap, fenced completion, retries and dead letters,
 * ordering groups, purge. One body of tests for every dialect: no dialect is named below.
 */
import { type Delivery, DeliveryStatus, type NewDelivery } from '@webhook-idempotency/core/inbox';
import { InboxSchema, SqlInbox } from '../src';
import { connectionKinds, type OpenedKind } from './helpers/kinds';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Every byte value, and bytes that are not UTF-8: the body must come back exactly.
const BODY = Buffer.concat([Buffer.from('{"id":"evt_1"}'), Buffer.from([0, 0xff, 0xfe, 0x80])]);
const LEASE = 60_000;

describe.each(connectionKinds('inbox'))('SqlInbox (%s)', (_name, open) => {
  let opened: OpenedKind;
  let inbox: SqlInbox;
  let table = 0;
  const delivery = (externalId: string, extra: Partial<NewDelivery> = {}): NewDelivery => ({
    provider: 'stripe',
    externalId,
    orderingKey: null,
    headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=ab' },
    body: BODY,
    ...extra,
  });
  const claimAll = (limit = 100, providers = ['stripe']) =>
    inbox.claim({ providers, limit, leaseMs: LEASE });

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    // A table per test: each starts empty, whatever the one before left.
    const name = `inbox_${++table}`;
    await InboxSchema.createTable(opened.db, { table: name });
    inbox = new SqlInbox(opened.db, { table: name });
  });

  it('stores a delivery once: the same key again changes nothing; the bytes and headers come back exactly', async () => {
    expect(await inbox.enqueue(delivery('evt_1'))).toBe(true);
    expect(await inbox.enqueue(delivery('evt_1', { body: Buffer.from('other') }))).toBe(false);
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored).toMatchObject({
      provider: 'stripe',
      externalId: 'evt_1',
      status: DeliveryStatus.PENDING,
      attempts: 0,
      failures: 0,
      orderingKey: null,
      finishedAt: null,
      lastError: null,
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=ab' },
    });
    expect(Buffer.compare(stored!.body, BODY)).toBe(0);
    expect(stored!.receivedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await inbox.list()).toHaveLength(1);
    expect(await inbox.find('stripe', 'evt_2')).toBeNull();
    expect(await inbox.find('github', 'evt_1')).toBeNull();
  });

  it('of 20 concurrent enqueues of one key, exactly one stores it', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => inbox.enqueue(delivery('evt_race'))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await inbox.list()).toHaveLength(1);
  });

  it('claims due deliveries oldest first, leases them (attempts 1) and never hands one out twice', async () => {
    for (const id of ['a', 'b', 'c', 'd', 'e']) await inbox.enqueue(delivery(id));
    await inbox.enqueue(delivery('g1', { provider: 'github' }));
    const [first, second] = await Promise.all([claimAll(2), claimAll(2)]);
    const claimed = [...first!, ...second!];
    expect(claimed.map((d) => d.externalId).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(claimed.every((d) => d.attempts === 1)).toBe(true);
    expect(Buffer.compare(claimed[0]!.body, BODY)).toBe(0);
    const rest = await claimAll();
    expect(rest.map((d) => d.externalId)).toEqual(['e']);
    expect(await claimAll()).toEqual([]);
    expect((await inbox.find('stripe', 'a'))!.status).toBe(DeliveryStatus.PROCESSING);
    // Only the providers asked for.
    expect((await claimAll(10, ['github'])).map((d) => d.externalId)).toEqual(['g1']);
    expect(await inbox.claim({ providers: [], limit: 10, leaseMs: LEASE })).toEqual([]);
  });

  it('50 concurrent claimers of 40 deliveries: each leased exactly once', async () => {
    for (let i = 0; i < 40; i++) await inbox.enqueue(delivery(`evt_${i}`));
    const batches = await Promise.all(Array.from({ length: 50 }, () => claimAll(3)));
    const ids = batches.flat().map((d) => d.externalId);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('with skipLocked: false (servers without SKIP LOCKED), concurrent claims wait instead and still lease each once', async () => {
    const waiting = new SqlInbox(opened.db, { table: inbox.table, skipLocked: false });
    for (let i = 0; i < 12; i++) await waiting.enqueue(delivery(`evt_${i}`));
    const batches = await Promise.all(
      Array.from({ length: 6 }, () =>
        waiting.claim({ providers: ['stripe'], limit: 3, leaseMs: LEASE }),
      ),
    );
    const ids = batches.flat().map((d) => d.externalId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(12);
  });

  it('complete is fenced by the lease: done once, then never claimed again', async () => {
    await inbox.enqueue(delivery('evt_1'));
    const [leased] = await claimAll();
    expect(await inbox.complete({ id: leased!.id, attempts: leased!.attempts + 1 })).toBe(false);
    expect(await inbox.complete(leased!)).toBe(true);
    expect(await inbox.complete(leased!)).toBe(false);
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored!.status).toBe(DeliveryStatus.DONE);
    expect(stored!.finishedAt).not.toBeNull();
    expect(await claimAll()).toEqual([]);
  });

  it('an expired lease is taken over (attempts 2) and the first holder can no longer settle it', async () => {
    await inbox.enqueue(delivery('evt_1'));
    const [old] = await inbox.claim({ providers: ['stripe'], limit: 1, leaseMs: 50 });
    expect(await claimAll()).toEqual([]);
    await sleep(120);
    const [taken] = await claimAll();
    // Its worker presumably died: that counts as a failure, recorded as such.
    expect(taken).toMatchObject({ externalId: 'evt_1', attempts: 2, failures: 1, id: old!.id });
    expect((await inbox.find('stripe', 'evt_1'))!.lastError).toMatch(/^LeaseExpired: /);
    expect(await inbox.complete(old!)).toBe(false);
    expect(await inbox.retry(old!, { delayMs: 0, error: 'late' })).toBe(false);
    expect(await inbox.bury(old!, { error: 'late' })).toBe(false);
    expect(await inbox.complete(taken!)).toBe(true);
  });

  it('retry gives the delivery back after its delay, keeping the last error when none is given', async () => {
    await inbox.enqueue(delivery('evt_1'));
    const [first] = await claimAll();
    expect(await inbox.retry(first!, { delayMs: 60_000, error: 'boom \u0000 1' })).toBe(true);
    expect(await claimAll()).toEqual([]);
    let stored = await inbox.find('stripe', 'evt_1');
    expect(stored).toMatchObject({ status: DeliveryStatus.PENDING, lastError: 'boom \uFFFD 1' });
    expect(stored!.availableAt.getTime() - Date.now()).toBeGreaterThan(50_000);

    await inbox.enqueue(delivery('evt_2'));
    const [second] = await claimAll();
    expect(second!.externalId).toBe('evt_2');
    expect(await inbox.retry(second!, { delayMs: 0, error: 'first failure' })).toBe(true);
    const [again] = await claimAll();
    expect(again).toMatchObject({ externalId: 'evt_2', attempts: 2, failures: 1 });
    expect(await inbox.retry(again!, { delayMs: 0, error: null })).toBe(true);
    stored = await inbox.find('stripe', 'evt_2');
    expect(stored).toMatchObject({
      status: DeliveryStatus.PENDING,
      lastError: 'first failure',
      // A release is not a failure: only the failed attempt counts.
      attempts: 2,
      failures: 1,
    });
    const [third] = await claimAll();
    expect(third).toMatchObject({ attempts: 3, failures: 1 });
    expect(await inbox.bury(third!, { error: 'gave up' })).toBe(true);
    expect(await inbox.find('stripe', 'evt_2')).toMatchObject({ status: 'dead', failures: 2 });
  });

  it('extend keeps the leases still held for longer and leaves lost ones alone', async () => {
    await inbox.enqueue(delivery('evt_1'));
    await inbox.enqueue(delivery('evt_2'));
    await inbox.enqueue(delivery('evt_3'));
    const leased = await inbox.claim({ providers: ['stripe'], limit: 3, leaseMs: 50 });
    expect(leased).toHaveLength(3);
    const [one, two, three] = leased as [Delivery, Delivery, Delivery];
    // evt_3's lease is no longer held: it was settled.
    expect(await inbox.complete(three)).toBe(true);
    expect(
      await inbox.extend([one, two, three, { id: one.id, attempts: 9 }], { leaseMs: LEASE }),
    ).toBe(2);
    expect(await inbox.extend([], { leaseMs: LEASE })).toBe(0);
    await sleep(120);
    // The short lease has passed, the extended one has not: nothing is taken over.
    expect(await claimAll()).toEqual([]);
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored).toMatchObject({ status: 'processing', attempts: 1 });
    expect(stored!.availableAt.getTime() - Date.now()).toBeGreaterThan(50_000);
    expect(await inbox.complete(two)).toBe(true);
  });

  it('bury marks it dead with the error: listed, never claimed again', async () => {
    await inbox.enqueue(delivery('evt_1'));
    await inbox.enqueue(delivery('evt_2'));
    const [leased] = await claimAll(1);
    expect(await inbox.bury(leased!, { error: 'gave up' })).toBe(true);
    const dead = await inbox.list({ status: DeliveryStatus.DEAD });
    expect(dead.map((d) => [d.externalId, d.lastError])).toEqual([['evt_1', 'gave up']]);
    expect(dead[0]!.finishedAt).not.toBeNull();
    expect((await claimAll()).map((d) => d.externalId)).toEqual(['evt_2']);
    expect(await claimAll()).toEqual([]);
  });

  it('redeliver puts a dead or done delivery back, due now, with a fresh failure budget; attempts keep counting', async () => {
    await inbox.enqueue(delivery('evt_dead'));
    await inbox.enqueue(delivery('evt_done'));
    await inbox.enqueue(delivery('evt_waiting'));
    const [dead, done, waiting] = (await claimAll(3)) as [Delivery, Delivery, Delivery];
    expect(await inbox.bury(dead, { error: 'poison' })).toBe(true);
    expect(await inbox.complete(done)).toBe(true);
    expect(await inbox.retry(waiting, { delayMs: LEASE, error: 'once' })).toBe(true);

    expect(await inbox.redeliver('stripe', 'evt_dead')).toBe(DeliveryStatus.DEAD);
    expect(await inbox.find('stripe', 'evt_dead')).toMatchObject({
      status: DeliveryStatus.PENDING,
      attempts: 1,
      failures: 0,
      finishedAt: null,
      lastError: 'poison',
    });
    expect(await inbox.redeliver('stripe', 'evt_done')).toBe(DeliveryStatus.DONE);
    // Pending (already or waiting), processing, not stored: nothing changes.
    expect(await inbox.redeliver('stripe', 'evt_dead')).toBeNull();
    expect(await inbox.redeliver('stripe', 'evt_waiting')).toBeNull();
    expect(await inbox.redeliver('stripe', 'nope')).toBeNull();
    expect((await inbox.find('stripe', 'evt_waiting'))!.availableAt.getTime()).toBeGreaterThan(
      Date.now() + 30_000,
    );
    const again = await claimAll();
    expect(again.map((d) => [d.externalId, d.attempts, d.failures])).toEqual([
      ['evt_dead', 2, 0],
      ['evt_done', 2, 0],
    ]);
    expect(await inbox.redeliver('stripe', 'evt_dead')).toBeNull();
    // The old leases stay lost: the fencing token only grew.
    expect(await inbox.complete(dead)).toBe(false);
    expect(await inbox.complete(again[0]!)).toBe(true);
  });

  it('of 10 concurrent redelivers of one dead delivery, exactly one reports it', async () => {
    await inbox.enqueue(delivery('evt_1'));
    const [leased] = await claimAll();
    await inbox.bury(leased!, { error: 'poison' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => inbox.redeliver('stripe', 'evt_1')),
    );
    expect(results.filter((r) => r !== null)).toEqual([DeliveryStatus.DEAD]);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending', attempts: 1 });
  });

  it('retryNow makes a pending delivery waiting for its backoff due now, and nothing else', async () => {
    await inbox.enqueue(delivery('evt_1'));
    const [leased] = await claimAll();
    expect(await inbox.retry(leased!, { delayMs: LEASE, error: 'boom' })).toBe(true);
    expect(await claimAll()).toEqual([]);
    expect(await inbox.retryNow('stripe', 'evt_1')).toBe(true);
    // Due already: nothing to change.
    expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
    const [again] = await claimAll();
    expect(again).toMatchObject({ externalId: 'evt_1', attempts: 2, failures: 1 });
    // Processing, done, not stored.
    expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
    await inbox.complete(again!);
    expect(await inbox.retryNow('stripe', 'evt_1')).toBe(false);
    expect(await inbox.retryNow('stripe', 'nope')).toBe(false);
    expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
  });

  it('tells whether its table exists', async () => {
    expect(await inbox.tableExists()).toBe(true);
    expect(await new SqlInbox(opened.db, { table: 'inbox_missing' }).tableExists()).toBe(false);
  });

  it('an ordering group is processed one at a time, in receipt order; a dead head lets the next one go', async () => {
    const group = { orderingKey: 'cus_1' };
    await inbox.enqueue(delivery('o1', group));
    await inbox.enqueue(delivery('o2', group));
    await inbox.enqueue(delivery('free'));
    await inbox.enqueue(delivery('o3', group));
    await inbox.enqueue(delivery('other', { orderingKey: 'cus_2' }));
    // The same ordering key at another provider is another group.
    await inbox.enqueue(delivery('gh', { provider: 'github', orderingKey: 'cus_1' }));
    const first = await claimAll(10, ['stripe', 'github']);
    expect(first.map((d) => d.externalId)).toEqual(['o1', 'free', 'other', 'gh']);
    expect(first[0]!.orderingKey).toBe('cus_1');
    expect(await claimAll()).toEqual([]);
    // A retry keeps the head in place: o2 still waits.
    expect(await inbox.retry(first[0]!, { delayMs: 60_000, error: 'later' })).toBe(true);
    expect(await claimAll()).toEqual([]);
    const o1 = (await inbox.find('stripe', 'o1'))!;
    expect(o1.status).toBe(DeliveryStatus.PENDING);

    await inbox.enqueue(delivery('o4', { orderingKey: 'cus_3' }));
    await inbox.enqueue(delivery('o5', { orderingKey: 'cus_3' }));
    const [o4] = await claimAll();
    expect(o4!.externalId).toBe('o4');
    expect(await inbox.complete(o4!)).toBe(true);
    const [o5] = await claimAll();
    expect(o5!.externalId).toBe('o5');
    expect(await inbox.bury(o5!, { error: 'x' })).toBe(true);

    await inbox.enqueue(delivery('p1', { orderingKey: 'cus_4' }));
    await inbox.enqueue(delivery('p2', { orderingKey: 'cus_4' }));
    const [p1] = await claimAll();
    expect(await inbox.bury(p1!, { error: 'poison' })).toBe(true);
    expect((await claimAll()).map((d) => d.externalId)).toEqual(['p2']);
  });

  it('lists by status and provider, oldest first, up to a limit; refuses a bad filter', async () => {
    for (const id of ['a', 'b', 'c']) await inbox.enqueue(delivery(id));
    await inbox.enqueue(delivery('g', { provider: 'github' }));
    const [a] = await claimAll(1);
    await inbox.complete(a!);
    expect((await inbox.list({ status: DeliveryStatus.PENDING })).map((d) => d.externalId)).toEqual(
      ['b', 'c', 'g'],
    );
    expect((await inbox.list({ provider: 'github' })).map((d) => d.externalId)).toEqual(['g']);
    expect(
      (await inbox.list({ provider: 'stripe', status: DeliveryStatus.DONE })).map(
        (d) => d.externalId,
      ),
    ).toEqual(['a']);
    expect((await inbox.list({ limit: 2 })).map((d) => d.externalId)).toEqual(['a', 'b']);
    await expect(inbox.list({ status: 'stuck' as never })).rejects.toMatchObject({
      code: 'ERR_IDEMPOTENCY_CONFIG',
      option: 'status',
    });
    await expect(inbox.list({ limit: 0 })).rejects.toMatchObject({ option: 'limit' });
  });

  it('purge deletes finished deliveries past the retention, in batches, never a pending or processing one', async () => {
    for (const id of ['done1', 'done2', 'done3', 'dead', 'leased', 'pending'])
      await inbox.enqueue(delivery(id));
    const leased = await claimAll(5);
    for (const d of leased.slice(0, 3)) await inbox.complete(d);
    await inbox.bury(leased[3]!, { error: 'x' });
    expect(await inbox.purge({ olderThanMs: 60_000 })).toBe(0);
    await sleep(20);
    expect(await inbox.purge({ olderThanMs: 0, batchSize: 2 })).toBe(4);
    expect((await inbox.list()).map((d) => [d.externalId, d.status])).toEqual([
      ['leased', 'processing'],
      ['pending', 'pending'],
    ]);
    await expect(inbox.purge({ olderThanMs: -1 })).rejects.toMatchObject({ option: 'olderThanMs' });
  });
});

describe('SqlInbox options', () => {
  it('refuses a bad table name and options, naming them', () => {
    const db = { prepare() {}, pragma() {}, exec() {} };
    expect(() => new SqlInbox(db as never, { table: 'x; DROP' })).toThrow(
      expect.objectContaining({ option: 'table' }),
    );
    expect(() => new SqlInbox(db as never, { skipLocked: 'yes' as never })).toThrow(
      expect.objectContaining({ option: 'skipLocked' }),
    );
    expect(() => new SqlInbox(db as never, { acquireTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'acquireTimeoutMs' }),
    );
    expect(() => new SqlInbox({} as never)).toThrow(TypeError);
  });

  it('the DDL of every dialect names the table and both keys', () => {
    for (const dialect of ['postgres', 'mysql', 'sqlite'] as const) {
      const [create] = InboxSchema.statements(dialect, { table: 'my_inbox' });
      expect(create).toMatch(/CREATE TABLE IF NOT EXISTS .my_inbox./);
      expect(create).toMatch(/UNIQUE \(provider, external_id\)/);
      expect(create).toMatch(/PRIMARY KEY/);
    }
    expect(() => InboxSchema.statements('oracle' as never)).toThrow(TypeError);
  });
});
