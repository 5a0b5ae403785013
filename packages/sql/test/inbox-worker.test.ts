/**
 * createInboxWorker over SqlInbox and a transactional SqlStore (issue 12), on every kind of
 * connection: each delivery's handler runs once through its receipt, its business writes commit
 * with the receipt, failures are retried after a backoff and dead-lettered at the limit, an
 * ordering group runs one at a time in receipt order, and stop() gives unfinished work back.
 */
import {
  type GuardEvent,
  IdempotencyGuard,
  RequestKey,
  TransactionClosed,
} from '@webhook-idempotency/core';
import {
  createInboxWorker,
  DeliveryStatus,
  type InboxEvent,
  type InboxHandler,
  retryDelayMs,
} from '@webhook-idempotency/core/inbox';
import { createExecutor } from '../src/connections/detect';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { driverKinds, ORM_SAMPLE, ormKinds, runOn, type OpenedKind } from './helpers/kinds';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ...driverKinds('inbox_worker'),
  ...ormKinds('inbox_worker').filter(([name]) => ORM_SAMPLE.includes(name)),
])('the inbox worker (%s)', (_name, open) => {
  let opened: OpenedKind;
  let n = 0;
  let inbox: SqlInbox;
  let store: SqlStore;
  let effects: string;
  let events: InboxEvent[];

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    n++;
    await InboxSchema.createTable(opened.db, { table: `inbox_${n}` });
    await Schema.createTable(opened.db, { table: `receipts_${n}` });
    effects = `effects_${n}`;
    await createExecutor(opened.db, 10_000).query(
      `CREATE TABLE ${effects} (id VARCHAR(200) NOT NULL)`,
      [],
    );
    inbox = new SqlInbox(opened.db, { table: `inbox_${n}` });
    store = new SqlStore(opened.db, { table: `receipts_${n}` });
    events = [];
  });

  const enqueue = (externalId: string, orderingKey: string | null = null) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ id: externalId })),
    });
  const effectCount = async () => {
    const { rows } = await createExecutor(opened.db, 10_000).query(
      `SELECT id FROM ${effects} ORDER BY id`,
      [],
    );
    return rows.map((row) => String(row.id));
  };
  const book: InboxHandler<unknown> = async (delivery, { transaction }) => {
    const { id } = JSON.parse(delivery.body.toString('utf8')) as { id: string };
    await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [id]);
    return { booked: id };
  };
  const worker = (handler: InboxHandler<unknown>, extra = {}) =>
    createInboxWorker({
      inbox,
      store: store as never,
      handlers: { stripe: handler },
      backoffBaseMs: 10,
      // What it reports while it runs (on SQLite it also warns when built: regression/sqlite-inbox-one-connection).
      onEvent: (event) => void (event.type !== 'warning' && events.push(event)),
      ...extra,
    });

  it('runs each delivery once, its business write committed with the receipt; the delivery is done', async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    expect(await worker(book).runOnce()).toBe(3);
    expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect((await inbox.list()).map((d) => d.status)).toEqual(['done', 'done', 'done']);
    const receipt = await store.find(new RequestKey('stripe', 'evt_2'), { now: Date.now() });
    expect(receipt).toMatchObject({ status: 'completed', response: '{"booked":"evt_2"}' });
    expect(events.map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
    expect(await worker(book).runOnce()).toBe(0);
  });

  it('a delivery whose receipt is already completed (a worker died after its commit) is done without running again', async () => {
    const guard = new IdempotencyGuard(store, { transactional: true });
    await guard.run(new RequestKey('stripe', 'evt_1'), (context) =>
      book({ body: Buffer.from('{"id":"evt_1"}') } as never, {
        ...context,
        signal: new AbortController().signal,
      }),
    );
    await enqueue('evt_1');
    const handler = jest.fn(book);
    expect(await worker(handler).runOnce()).toBe(1);
    expect(handler).not.toHaveBeenCalled();
    expect(await effectCount()).toEqual(['evt_1']);
    expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
    expect(events).toEqual([expect.objectContaining({ type: 'processed', replayed: true })]);
  });

  it('a failed handler rolls its write back and is retried after its backoff; it then runs once', async () => {
    await enqueue('evt_1');
    let calls = 0;
    const flaky: InboxHandler<unknown> = async (delivery, context) => {
      await book(delivery, context);
      if (++calls === 1) throw new Error('the ledger is busy');
      return 'ok';
    };
    const w = worker(flaky);
    expect(await w.runOnce()).toBe(1);
    const waiting = await inbox.find('stripe', 'evt_1');
    expect(waiting).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'Error: the ledger is busy',
    });
    expect(await effectCount()).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'retry', error: 'Error: the ledger is busy' });
    const delay = (events[0] as { delayMs: number }).delayMs;
    expect(delay).toBeGreaterThanOrEqual(5);
    expect(delay).toBeLessThanOrEqual(10);
    await sleep(50);
    expect(await w.runOnce()).toBe(1);
    expect(await effectCount()).toEqual(['evt_1']);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('a delivery that keeps failing is dead after maxFailures, with its last error', async () => {
    await enqueue('evt_poison');
    const w = worker(
      async () => {
        throw new Error('bad payload');
      },
      { maxFailures: 2, backoffBaseMs: 0 },
    );
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    expect(await inbox.find('stripe', 'evt_poison')).toMatchObject({
      status: 'dead',
      attempts: 2,
      lastError: 'Error: bad payload',
    });
    expect(events.map((e) => e.type)).toEqual(['retry', 'dead']);
  });

  it('an ordering group runs one delivery at a time, in receipt order, while other deliveries run beside it', async () => {
    for (const id of ['o1', 'o2', 'o3', 'o4']) await enqueue(id, 'sub_1');
    await enqueue('free');
    const order: string[] = [];
    let running = 0;
    let overlap = 0;
    const w = worker(
      async (delivery: { externalId: string }) => {
        if (delivery.externalId !== 'free' && ++running > 1) overlap++;
        order.push(delivery.externalId);
        await sleep(20);
        if (delivery.externalId !== 'free') running--;
      },
      { concurrency: 4, pollIntervalMs: 5 },
    );
    w.start();
    for (let i = 0; i < 200 && (await inbox.list({ status: DeliveryStatus.DONE })).length < 5; i++)
      await sleep(20);
    await w.stop();
    expect(order.filter((id) => id !== 'free')).toEqual(['o1', 'o2', 'o3', 'o4']);
    expect(order).toContain('free');
    expect(overlap).toBe(0);
  });

  it('stop() ends a handler still in its transaction past the timeout: rolled back and given back at once, free of charge; the next worker runs it once', async () => {
    await enqueue('evt_slow');
    let finish!: () => void;
    const gate = new Promise<void>((release) => (finish = release));
    let late: unknown;
    const started = new Promise<void>((resolve) => {
      calls.handler = async (delivery, context) => {
        resolve();
        await gate;
        try {
          return await book(delivery, context);
        } catch (error) {
          late = error;
          throw error;
        }
      };
    });
    // One lane: while the handler runs, the loop claims nothing more, so the stop below meets no
    // claim of an empty table in flight (under load, that one can outlast 50 ms and be reported).
    const w = worker((d, c) => calls.handler(d, c), { pollIntervalMs: 5, concurrency: 1 });
    w.start();
    await started;
    // The handler is still inside its transaction (on SQLite: holding the one connection).
    await w.stop({ timeoutMs: 50 });
    expect(w.running).toBe(false);
    expect(events).toEqual([expect.objectContaining({ type: 'given-back', reason: 'shutdown' })]);
    expect(await inbox.find('stripe', 'evt_slow')).toMatchObject({
      status: 'pending',
      failures: 0,
      lastError: null,
    });
    // The handler wakes up after the stop: its transaction is gone, its write refused.
    finish();
    for (let i = 0; i < 100 && late === undefined; i++) await sleep(10);
    expect(late).toBeInstanceOf(TransactionClosed);
    expect(await effectCount()).toEqual([]);
    const again = jest.fn(book);
    expect(await worker(again).runOnce()).toBe(1);
    expect(again).toHaveBeenCalledTimes(1);
    expect(await effectCount()).toEqual(['evt_slow']);
    expect(await inbox.find('stripe', 'evt_slow')).toMatchObject({ status: 'done', failures: 0 });
  });

  it('a delivery whose receipt another run holds is released without a failure, until that run is over', async () => {
    await enqueue('evt_busy');
    const guard = new IdempotencyGuard(store, { staleAfterSeconds: 60 });
    const ticket = await guard.claim(new RequestKey('stripe', 'evt_busy'));
    expect(await worker(book).runOnce()).toBe(1);
    const released = await inbox.find('stripe', 'evt_busy');
    expect(released).toMatchObject({ status: 'pending', lastError: null });
    expect(released!.availableAt.getTime()).toBeGreaterThan(Date.now() + 10_000);
    expect(events).toEqual([
      expect.objectContaining({ type: 'given-back', reason: 'in-progress' }),
    ]);
    expect(released).toMatchObject({ attempts: 1, failures: 0 });
    if (!ticket.isReplay) await ticket.fail(new Error('gave up'));
  });

  it('a delivery whose workers died holding it maxFailures times is dead when claimed again, without running', async () => {
    await enqueue('evt_crasher');
    // Two workers took it and died (their leases expired): two failures.
    for (let i = 0; i < 2; i++) {
      expect(await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 1 })).toHaveLength(1);
      await sleep(20);
    }
    let ran = 0;
    const w = worker(
      async () => {
        ran++;
      },
      { maxFailures: 2 },
    );
    expect(await w.runOnce()).toBe(1);
    expect(ran).toBe(0);
    expect(await inbox.find('stripe', 'evt_crasher')).toMatchObject({
      status: 'dead',
      attempts: 3,
      failures: 3,
      lastError:
        'LeaseExpired: dead after 2 failures, the last one a worker that stopped holding it',
    });
    expect(events.map((e) => e.type)).toEqual(['dead']);
  });

  /** `inbox` with `complete` (and `completerFor`, when given) replaced: the rest is the inbox's. */
  const withInbox = (overrides: Partial<Pick<SqlInbox, 'complete' | 'completerFor'>>) =>
    new Proxy(inbox, {
      get(target, property) {
        if (property in overrides) return overrides[property as keyof typeof overrides];
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  it('knows the receipts store on its own connection as one whose transactions it can mark deliveries done in', () => {
    expect(inbox.completerFor(store)).toBeInstanceOf(Function);
    expect(inbox.completerFor(new SqlStore(opened.db, { table: 'other_receipts' }))).toBeInstanceOf(
      Function,
    );
    expect(inbox.completerFor({})).toBeUndefined();
  });

  it("marks the delivery done in the receipt's transaction: an inbox unreachable after the commit, then a purge of every receipt, cannot make the handler run again", async () => {
    await enqueue('evt_1');
    // Were the delivery marked done only after the commit, it would stay leased here, its receipt
    // purged below, and the claim after the lease ran out would run the handler a second time.
    const unreachable = withInbox({
      complete: async () => {
        throw new Error('the inbox is unreachable');
      },
    });
    const options = { inbox: unreachable, visibilityTimeoutSeconds: 1 };
    expect(await worker(book, options).runOnce()).toBe(1);
    expect(events).toEqual([expect.objectContaining({ type: 'processed', replayed: false })]);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', attempts: 1 });
    expect(await store.purge({ olderThanMs: 0, now: Date.now() })).toBe(1);
    await sleep(1100); // past the lease the first run held
    expect(await worker(book, options).runOnce()).toBe(0);
    expect(await effectCount()).toEqual(['evt_1']);
  });

  it("a lease found taken over in the receipt's transaction is reported lost; the handler's commit stands and the new owner replays it", async () => {
    await enqueue('evt_1');
    const takenOver: InboxHandler<unknown> = async (delivery, context) => {
      await book(delivery, context);
      // Another worker's claim of the expired lease, as seen from this transaction.
      await runOn(
        context.transaction,
        `UPDATE inbox_${n} SET attempts = attempts + 1 WHERE id = ?`,
        [delivery.id],
      );
      return 'booked';
    };
    expect(await worker(takenOver).runOnce()).toBe(1);
    expect(events).toEqual([expect.objectContaining({ type: 'lease-lost' })]);
    expect(await effectCount()).toEqual(['evt_1']);
    expect(await store.find(new RequestKey('stripe', 'evt_1'), { now: Date.now() })).toMatchObject({
      status: 'completed',
    });
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'processing',
      attempts: 2,
    });
  });

  it("marking the delivery done failing in the receipt's transaction rolls the handler back: a store failure, given back free of charge", async () => {
    await enqueue('evt_1');
    const failing = withInbox({
      completerFor: () => async () => {
        throw new Error('connection reset by peer');
      },
    });
    expect(await worker(book, { inbox: failing }).runOnce()).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['store-error', 'given-back']);
    expect(events[0]).toMatchObject({
      error: expect.objectContaining({ name: 'StoreError', store: 'inbox' }),
    });
    expect(events[1]).toMatchObject({ reason: 'store-error' });
    expect(await effectCount()).toEqual([]);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending', failures: 0 });
    const receipt = await store.find(new RequestKey('stripe', 'evt_1'), { now: Date.now() });
    expect(receipt?.status).not.toBe('completed');
  });

  it('at that limit, a delivery whose receipt shows the handler committed (its worker died after) is done, not dead', async () => {
    await enqueue('evt_committed');
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 1 });
    // The handler ran and committed its receipt; the worker died before marking the delivery.
    await new IdempotencyGuard(store as never).run(
      new RequestKey('stripe', 'evt_committed'),
      () => 'booked',
    );
    expect(leased).toBeDefined();
    await sleep(20);
    let ran = 0;
    const w = worker(
      async () => {
        ran++;
      },
      { maxFailures: 1 },
    );
    expect(await w.runOnce()).toBe(1);
    expect(ran).toBe(0);
    expect(await inbox.find('stripe', 'evt_committed')).toMatchObject({ status: 'done' });
    expect(events).toEqual([expect.objectContaining({ type: 'processed', replayed: true })]);
  });
  describe('groups (first deliveries in one transaction)', () => {
    const idOf = (delivery: { body: Buffer }) =>
      (JSON.parse(delivery.body.toString('utf8')) as { id: string }).id;
    type Args = Parameters<InboxHandler<unknown>>;
    /** A booking handler that records each call: the delivery's id and the transaction it got. */
    const recording = (
      throwOnce: ReadonlySet<string> = new Set(),
      extra?: (delivery: Args[0], context: Args[1]) => Promise<void>,
    ) => {
      const calls: Array<{ id: string; transaction: unknown }> = [];
      const thrown = new Set<string>();
      const handler: InboxHandler<unknown> = async (delivery, context) => {
        const id = idOf(delivery);
        calls.push({ id, transaction: context.transaction });
        const result = await book(delivery, context);
        await extra?.(delivery, context);
        if (throwOnce.has(id) && !thrown.has(id)) {
          thrown.add(id);
          throw new Error(`${id} is refused once`);
        }
        return result;
      };
      return { calls, handler };
    };
    const receiptOf = (id: string) => store.find(new RequestKey('stripe', id), { now: Date.now() });
    /**
     * One lane (a claim's first deliveries make one group, not one per free lane) and a window no
     * loaded machine reaches: the tests that count transactions do not depend on speed.
     */
    const wide = { groupWindowMs: 60_000, concurrency: 1 };
    const three = async () => {
      for (const id of ['evt_1', 'evt_2', 'evt_3']) await enqueue(id);
    };

    it('knows the receipts store on its own connection as one it can group in, and no other', () => {
      expect(inbox.batcherFor(store)).toBeDefined();
      expect(inbox.batcherFor(new SqlStore(opened.db, { table: 'other_receipts' }))).toBeDefined();
      expect(inbox.batcherFor({})).toBeUndefined();
    });

    it("runs a claim's first deliveries in one transaction: each booked once, its receipt completed and the delivery done", async () => {
      await three();
      const { calls, handler } = recording();
      expect(await worker(handler, wide).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      // One transaction handle for the whole group.
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(1);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      for (const id of ['evt_1', 'evt_2', 'evt_3'])
        expect(await receiptOf(id)).toMatchObject({
          status: 'completed',
          attempts: 1,
          response: JSON.stringify({ booked: id }),
        });
      expect((await inbox.list()).map((d) => d.status)).toEqual(['done', 'done', 'done']);
      expect(events.map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
    });

    it('puts a claim in as few transactions as hold it, also with more lanes free than it fills', async () => {
      await three();
      const { calls, handler } = recording();
      expect(await worker(handler, { groupWindowMs: 60_000, concurrency: 8 }).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(1);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    });

    it("reports each grouped delivery to the guard's listener once, as a first delivery with its handler's time", async () => {
      await three();
      const { handler } = recording();
      const delivered: GuardEvent[] = [];
      const guard = new IdempotencyGuard(store, {
        transactional: true,
        staleAfterSeconds: 60,
        onEvent: (event) => void (event.type === 'delivered' && delivered.push(event)),
      });
      const w = createInboxWorker({
        inbox,
        guard,
        handlers: { stripe: handler },
        onEvent: (event) => void (event.type !== 'warning' && events.push(event)),
        ...wide,
      });
      expect(await w.runOnce()).toBe(3);
      expect(
        delivered.map((e) => e.type === 'delivered' && [e.key.externalId, e.outcome, e.attempts]),
      ).toEqual([
        ['evt_1', 'first', 1],
        ['evt_2', 'first', 1],
        ['evt_3', 'first', 1],
      ]);
      for (const event of delivered)
        if (event.type === 'delivered') {
          expect(event.handlerMs).toBeGreaterThanOrEqual(0);
          expect(event.durationMs).toBeGreaterThanOrEqual(event.handlerMs!);
        }
    });

    it('runs at most `concurrency` handlers at once, one transaction per lane; a claim leases concurrency × groupSize', async () => {
      for (let i = 1; i <= 6; i++) await enqueue(`evt_${i}`);
      let now = 0;
      let most = 0;
      const { calls, handler } = recording(new Set(), async () => {
        most = Math.max(most, ++now);
        await sleep(5);
        now--;
      });
      expect(await worker(handler, { ...wide, concurrency: 2, groupSize: 2 }).runOnce()).toBe(4);
      // Two lanes (on SQLite's one connection their transactions take turns).
      expect(most).toBeLessThanOrEqual(2);
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(2);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4']);
    });

    it('once its handlers have taken groupWindowMs, a group commits what ran and the rest goes to the next transaction', async () => {
      await three();
      const { calls, handler } = recording(new Set(), async () => {
        await sleep(25);
      });
      expect(await worker(handler, { concurrency: 1 }).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(3);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(events.map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
    });

    it('a slow handler hands out what its group has not started; when it then fails, it alone is charged and what left ran once', async () => {
      await three();
      // evt_1 runs past the window (20 ms), then throws: evt_2 and evt_3 left its group by then.
      const { calls, handler } = recording(new Set(['evt_1']), async (delivery) => {
        if (idOf(delivery) === 'evt_1') await sleep(60);
      });
      expect(await worker(handler).runOnce()).toBe(3);
      expect(calls.map((c) => c.id).sort()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      // Each in a transaction of its own, none run again.
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(3);
      expect(await effectCount()).toEqual(['evt_2', 'evt_3']);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'pending', failures: 1 });
      for (const id of ['evt_2', 'evt_3'])
        expect(await inbox.find('stripe', id)).toMatchObject({ status: 'done', failures: 0 });
      expect(events.map((e) => e.type).sort()).toEqual(['processed', 'processed', 'retry']);
    });

    it('a delivery given back uncharged before (no failure yet) is grouped with the others', async () => {
      await three();
      // Leased and given back once each (a stop, a surplus): attempts 1, no failure.
      await createExecutor(opened.db, 10_000).query(`UPDATE inbox_${n} SET attempts = 1`, []);
      const { calls, handler } = recording();
      expect(await worker(handler, wide).runOnce()).toBe(3);
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(1);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect((await inbox.list()).map((d) => d.attempts)).toEqual([2, 2, 2]);
    });

    it('batchSize and batchWindowMs, the deprecated names of groupSize and groupWindowMs, still shape the groups', async () => {
      await three();
      const slow = recording(new Set(), async () => {
        await sleep(25);
      });
      // A window past the slow handlers keeps them in one group (20 ms by default: one each).
      expect(await worker(slow.handler, { batchWindowMs: 60_000, concurrency: 1 }).runOnce()).toBe(
        3,
      );
      expect(new Set(slow.calls.map((c) => c.transaction)).size).toBe(1);
      for (const id of ['evt_4', 'evt_5', 'evt_6']) await enqueue(id);
      const one = recording();
      expect(await worker(one.handler, { batchSize: 1 }).runOnce()).toBe(3);
      expect(new Set(one.calls.map((c) => c.transaction)).size).toBe(3);
    });

    it('groupSize 1 runs each delivery in a transaction of its own', async () => {
      await three();
      const { calls, handler } = recording();
      expect(await worker(handler, { groupSize: 1 }).runOnce()).toBe(3);
      expect(new Set(calls.map((c) => c.transaction)).size).toBe(3);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    });

    it('a handler that throws first in its transaction rolls its group back: it alone is charged a failure; the others run again and commit once', async () => {
      await three();
      const { calls, handler } = recording(new Set(['evt_1']));
      expect(await worker(handler, wide).runOnce()).toBe(3);
      // evt_1 failed first in the group; evt_2 and evt_3 never ran in it, then ran once.
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(await effectCount()).toEqual(['evt_2', 'evt_3']);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: 'pending',
        failures: 1,
        lastError: 'Error: evt_1 is refused once',
      });
      // Nothing of the rolled-back group is left: no receipt for the failed delivery.
      expect(await receiptOf('evt_1')).toBeNull();
      for (const id of ['evt_2', 'evt_3'])
        expect(await inbox.find('stripe', id)).toMatchObject({ status: 'done', failures: 0 });
      expect(events.map((e) => e.type).sort()).toEqual(['processed', 'processed', 'retry']);
      await sleep(50);
      // Its retry runs on its own (not a first delivery) and books it once.
      expect(await worker(handler).runOnce()).toBe(1);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', failures: 1 });
    });

    it('a handler that throws after others ran in its transaction is judged again on its own, uncharged; the others run again and commit once', async () => {
      await three();
      const { calls, handler } = recording(new Set(['evt_2']));
      expect(await worker(handler, wide).runOnce()).toBe(3);
      // evt_1 ran in the group (rolled back) and again; evt_2 ran again on its own and passed.
      expect(calls.slice(0, 2).map((c) => c.id)).toEqual(['evt_1', 'evt_2']);
      expect(
        calls
          .slice(2)
          .map((c) => c.id)
          .sort(),
      ).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      for (const id of ['evt_1', 'evt_2', 'evt_3'])
        expect(await inbox.find('stripe', id)).toMatchObject({ status: 'done', failures: 0 });
      expect(events.map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
    });

    it('a delivery whose key already has a receipt is left out of the group and replayed on its own', async () => {
      const guard = new IdempotencyGuard(store, { transactional: true });
      await guard.run(new RequestKey('stripe', 'evt_2'), (context) =>
        book({ body: Buffer.from('{"id":"evt_2"}') } as never, {
          ...context,
          signal: new AbortController().signal,
        }),
      );
      await three();
      const { calls, handler } = recording();
      expect(await worker(handler, wide).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_3']);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'processed',
          replayed: true,
          delivery: expect.objectContaining({ externalId: 'evt_2' }),
        }),
      );
      expect((await inbox.list()).map((d) => d.status)).toEqual(['done', 'done', 'done']);
    });

    it('a receipt written meanwhile for a key of the group rolls the group back; each delivery then runs on its own', async () => {
      await three();
      const { calls, handler } = recording(new Set(), async (delivery, { transaction }) => {
        // Another run's receipt for evt_3, as seen from this transaction, written after the group
        // read the receipts (the rollback takes it too).
        if (idOf(delivery) === 'evt_1' && calls.length === 1)
          await runOn(
            transaction,
            `INSERT INTO receipts_${n} (provider, external_id, status, response, attempts, claimed_at, finished_at) VALUES ('stripe', 'evt_3', 'completed', 'null', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
            [],
          );
      });
      expect(await worker(handler, wide).runOnce()).toBe(3);
      // The group ran all three, then each ran again on its own.
      expect(calls.slice(0, 3).map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(
        calls
          .slice(3)
          .map((c) => c.id)
          .sort(),
      ).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(new Set(calls.slice(3).map((c) => c.transaction)).size).toBe(3);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
      // Reported, then each processed once.
      expect(events[0]).toMatchObject({
        type: 'store-error',
        operation: 'group',
        error: expect.objectContaining({ name: 'GroupConflict' }),
      });
      expect(events.slice(1).map((e) => e.type)).toEqual(['processed', 'processed', 'processed']);
      for (const id of ['evt_1', 'evt_2', 'evt_3'])
        expect(await receiptOf(id)).toMatchObject({ status: 'completed', attempts: 1 });
    });

    it("a lease found taken over is reported lost; the group's commit stands and the new owner replays it", async () => {
      for (const id of ['evt_1', 'evt_2']) await enqueue(id);
      const { handler } = recording(new Set(), async (delivery, { transaction }) => {
        if (idOf(delivery) === 'evt_2')
          await runOn(transaction, `UPDATE inbox_${n} SET attempts = attempts + 1 WHERE id = ?`, [
            delivery.id,
          ]);
      });
      expect(await worker(handler, wide).runOnce()).toBe(2);
      expect(events.map((e) => e.type)).toEqual(['processed', 'lease-lost']);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2']);
      expect(await receiptOf('evt_2')).toMatchObject({ status: 'completed' });
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
      expect(await inbox.find('stripe', 'evt_2')).toMatchObject({
        status: 'processing',
        attempts: 2,
      });
    });

    it('a handler past its deadline first in its transaction fails alone; the rest of its group runs again', async () => {
      await three();
      let stuck = true;
      const { calls, handler } = recording(new Set(), async (delivery, { signal }) => {
        if (idOf(delivery) === 'evt_1' && stuck) {
          stuck = false;
          // Past the deadline (80 % of a 0.5 s lease): wakes when the run is cut off.
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        }
      });
      expect(await worker(handler, { ...wide, visibilityTimeoutSeconds: 0.5 }).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(await effectCount()).toEqual(['evt_2', 'evt_3']);
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
        status: 'pending',
        failures: 1,
        lastError: expect.stringContaining('HandlerTimeout'),
      });
    });

    it('gives back at once, free of charge, the retries a claim leased beyond the free lanes', async () => {
      await three();
      // Not first deliveries: a failure each already.
      await createExecutor(opened.db, 10_000).query(`UPDATE inbox_${n} SET failures = 1`, []);
      const { calls, handler } = recording();
      expect(await worker(handler, { concurrency: 1, groupSize: 4 }).runOnce()).toBe(3);
      expect(calls.map((c) => c.id)).toEqual(['evt_1']);
      expect(events.map((e) => e.type).sort()).toEqual(['given-back', 'given-back', 'processed']);
      expect(events.filter((e) => e.type === 'given-back')).toEqual([
        expect.objectContaining({ reason: 'surplus' }),
        expect.objectContaining({ reason: 'surplus' }),
      ]);
      for (const id of ['evt_2', 'evt_3'])
        expect(await inbox.find('stripe', id)).toMatchObject({ status: 'pending', failures: 1 });
    });

    it('stop() past its timeout ends a group in its transaction: every delivery of it given back free of charge, nothing committed', async () => {
      await three();
      let started!: () => void;
      const inside = new Promise<void>((resolve) => (started = resolve));
      const { handler } = recording(new Set(), async (delivery, { signal }) => {
        if (idOf(delivery) === 'evt_2') {
          started();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        }
      });
      const w = worker(handler, { ...wide, pollIntervalMs: 5 });
      w.start();
      await inside;
      await w.stop({ timeoutMs: 50 });
      expect(events.map((e) => e.type)).toEqual(['given-back', 'given-back', 'given-back']);
      expect(await effectCount()).toEqual([]);
      for (const d of await inbox.list())
        expect(d).toMatchObject({ status: 'pending', failures: 0, lastError: null });
      const again = recording();
      expect(await worker(again.handler).runOnce()).toBe(3);
      expect(await effectCount()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    });
  });
});

const calls: { handler: InboxHandler<unknown> } = { handler: async () => undefined };

describe('createInboxWorker options', () => {
  const inbox = { claim: async () => [] } as never;
  const store = { capabilities: { transactional: false }, claim() {}, reclaim() {} } as never;
  it('refuses bad options, naming them', () => {
    const handlers = { stripe: async () => undefined };
    expect(() => createInboxWorker({ inbox, handlers } as never)).toThrow(
      expect.objectContaining({ option: 'store' }),
    );
    expect(() => createInboxWorker({ inbox, store, handlers: {} })).toThrow(
      expect.objectContaining({ option: 'handlers' }),
    );
    expect(() => createInboxWorker({ inbox, store, handlers, concurrency: 0 })).toThrow(
      expect.objectContaining({ option: 'concurrency' }),
    );
    expect(() => createInboxWorker({ store, handlers } as never)).toThrow(
      expect.objectContaining({ option: 'inbox' }),
    );
    const guard = new IdempotencyGuard(store, { staleAfterSeconds: 120 });
    expect(() =>
      createInboxWorker({ inbox, guard, handlers, visibilityTimeoutSeconds: 60 }),
    ).toThrow(expect.objectContaining({ option: 'visibilityTimeoutSeconds' }));
  });

  it('backs off exponentially, capped, with up to half taken off at random', () => {
    const at = (attempts: number, random: number) =>
      retryDelayMs(attempts, { baseMs: 1000, maxMs: 10_000, random: () => random });
    expect([at(1, 0), at(1, 0.999), at(2, 0), at(3, 0), at(4, 0.5), at(9, 0)]).toEqual([
      500, 1000, 1000, 2000, 6000, 5000,
    ]);
  });
});
