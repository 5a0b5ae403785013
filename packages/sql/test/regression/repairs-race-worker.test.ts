/**
 * An operator's repairs race a real worker. Each repair (retry one delivery, retry every dead one,
 * redeliver one, release a claim) is a compare-and-set on the state the operator saw: a delivery
 * that a worker ran to `done` between the operator's read and the write stays `done` (it never
 * goes back to `pending` to be replayed), one that died again or failed again since is left as it
 * is, a claim taken over since is not released, and each outcome says what the delivery is now.
 *
 * The deterministic cases put the worker's run exactly between the read and the write: the inbox
 * the repair is given is the real one, with the race run once right after the repair's first read
 * (helpers/raced-inbox.ts).
 * The racing loop then lets a started worker and two operators retrying every dead delivery run
 * freely against each other, at `bySize` rounds. There, what must happen once is the handler's
 * committed write (a row booked through its transaction), not its start: a run whose transaction
 * the database rolled back (a deadlock victim on MariaDB, a run cut off by the stop's deadline)
 * leaves nothing behind and runs again.
 */
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { createInboxWorker, type InboxEvent } from '@webhook-idempotency/core/inbox';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import {
  InboxSchema,
  movedSince,
  ReceiptsAdmin,
  redeliverDelivery,
  retryDeadDeliveries,
  retryDelivery,
  Schema,
  SqlInbox,
  SqlStore,
} from '../../src';
import { createExecutor } from '../../src/connections/detect';
import type { Executor } from '../../src/connections/executor';
import { driverKinds, type OpenedKind } from '../helpers/kinds';
import { RacedInbox } from '../helpers/raced-inbox';

/** Rounds of the racing loop, dead deliveries per round, and the time the loop is given. */
const ROUNDS = bySize({ small: 3, full: 20, soak: 100 });
const PER_ROUND = bySize({ small: 12, full: 40, soak: 40 });
const LOOP_MS = bySize({ small: 30_000, full: 240_000, soak: 1_200_000 });

/** PostgreSQL, MariaDB and SQLite, each through its plain driver. */
const KINDS = ['pg Pool', 'mysql2 promise pool, MariaDB', 'better-sqlite3 file'];

describe.each(driverKinds('repair_races').filter(([name]) => KINDS.includes(name)))(
  'repairs racing a worker (%s)',
  (_name, open) => {
    let opened: OpenedKind;
    let n = 0;
    let inbox: SqlInbox;
    let store: SqlStore;
    let sql: Executor;
    let events: InboxEvent[];
    /** Handler starts, per external id. */
    let ran: Map<string, number>;
    /** While true, the handler throws: what dead-letters a delivery (one attempt allowed). */
    let failing: boolean;

    beforeAll(async () => {
      opened = await open();
      sql = createExecutor(opened.db, 10_000);
    });
    afterAll(() => opened.close());
    beforeEach(async () => {
      n++;
      await InboxSchema.createTable(opened.db, { table: `inbox_${n}` });
      await Schema.createTable(opened.db, { table: `receipts_${n}` });
      // No key: a second committed booking of one delivery is a second row, counted below.
      await sql.query(`CREATE TABLE booked_${n} (external_id VARCHAR(200) NOT NULL)`, []);
      inbox = new SqlInbox(opened.db, { table: `inbox_${n}` });
      store = new SqlStore(opened.db, { table: `receipts_${n}` });
      events = [];
      ran = new Map();
      failing = true;
    });

    const worker = (extra = {}) =>
      createInboxWorker({
        inbox,
        store: store as never,
        handlers: {
          stripe: async (delivery, { transaction }) => {
            if (failing) throw new Error('the ledger is down');
            ran.set(delivery.externalId, (ran.get(delivery.externalId) ?? 0) + 1);
            await sql.query(
              `INSERT INTO booked_${n} (external_id) VALUES (?)`,
              [delivery.externalId],
              transaction,
            );
            return { booked: delivery.externalId };
          },
        },
        maxFailures: 1,
        backoffBaseMs: 1,
        onEvent: (event) => void events.push(event),
        ...extra,
      });
    const enqueue = (externalId: string) =>
      inbox.enqueue({
        provider: 'stripe',
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from(`{"id":"${externalId}"}`),
      });
    /** Stores the deliveries and lets the worker fail each once: all dead, at attempts 1. */
    const dead = async (...ids: string[]) => {
      for (const id of ids) await enqueue(id);
      failing = true;
      while ((await worker().runOnce()) > 0);
      for (const id of ids)
        expect(await inbox.find('stripe', id)).toMatchObject({ status: 'dead' });
    };
    /** Another operator retries `id` and a worker runs it to the end: done, its handler run once. */
    const retriedAndRunElsewhere = async (id: string) => {
      const seen = (await inbox.find('stripe', id))!;
      expect(
        await inbox.redeliver('stripe', id, { status: 'dead', attempts: seen.attempts }),
      ).toBeTruthy();
      failing = false;
      expect(await worker().runOnce()).toBe(1);
      expect(await inbox.find('stripe', id)).toMatchObject({ status: 'done' });
    };
    const replays = () =>
      events.filter((e) => e.type === 'processed' && e.replayed).map((e) => e.type);
    /** An event as the failure message shows it; a store error with the operation and error text. */
    const told = (e: InboxEvent) => {
      const why = 'reason' in e ? ` (${String(e.reason)})` : '';
      // A store error says which write failed and why (a deadlock victim, a lock wait).
      const error =
        e.type === 'store-error' ? ` ${e.operation}: ${String(e.error).slice(0, 160)}` : '';
      return `${e.type}${why}${error}`;
    };
    /**
     * The deliveries among `ids` whose handler's write did not commit exactly once, each with its
     * handler starts and the events that name it, then the store errors that name no delivery (a
     * group's transaction): what the failure message shows. Empty when each committed once.
     */
    const notBookedOnce = async (ids: readonly string[]) => {
      const { rows } = await sql.query(
        `SELECT external_id AS id, COUNT(*) AS n FROM booked_${n} GROUP BY external_id`,
        [],
      );
      const booked = new Map(rows.map((row) => [String(row.id), Number(row.n)]));
      const wrong: unknown[] = ids
        .filter((id) => booked.get(id) !== 1)
        .map((id) => ({
          id,
          booked: booked.get(id) ?? 0,
          starts: ran.get(id) ?? 0,
          events: events.filter((e) => 'delivery' in e && e.delivery?.externalId === id).map(told),
        }));
      const unnamed = events.filter((e) => e.type === 'store-error' && !e.delivery).map(told);
      if (wrong.length > 0 && unnamed.length > 0) wrong.push({ storeErrorsOfNoDelivery: unnamed });
      return wrong;
    };

    it('retry of a dead delivery that a worker ran to done meanwhile: left done, reported "was done meanwhile"', async () => {
      await dead('evt_1');
      const raced = new RacedInbox(inbox).arm(() => retriedAndRunElsewhere('evt_1'));
      const outcome = await retryDelivery(raced, { provider: 'stripe', externalId: 'evt_1' });

      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done', attempts: 2 });
      expect(outcome).toMatchObject({ retried: false, reason: 'changed' });
      expect(movedSince({ status: 'dead', attempts: 1 }, outcome!.after)).toBe(
        'was done meanwhile',
      );
      // Nothing went back for a worker to replay.
      failing = false;
      expect(await worker().runOnce()).toBe(0);
      expect(ran.get('evt_1')).toBe(1);
      expect(replays()).toEqual([]);
    });

    it('retry with the state the operator was shown (dead, attempt 1) after it was run to done: left done', async () => {
      await dead('evt_1');
      const shown = (await inbox.find('stripe', 'evt_1'))!;
      await retriedAndRunElsewhere('evt_1');
      const outcome = await retryDelivery(
        inbox,
        { provider: 'stripe', externalId: 'evt_1' },
        { expected: { status: shown.status, attempts: shown.attempts } },
      );
      expect(outcome).toMatchObject({ retried: false, reason: 'changed' });
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
    });

    it('retry of a pending delivery seen waiting, claimed and failed again since: its new backoff stands', async () => {
      await enqueue('evt_1');
      failing = true;
      const patient = worker({ maxFailures: 5, backoffBaseMs: 1 });
      expect(await patient.runOnce()).toBe(1);
      const shown = (await inbox.find('stripe', 'evt_1'))!;
      expect(shown).toMatchObject({ status: 'pending', attempts: 1 });
      // Its backoff passes; the worker claims it and it fails again, now with an hour to wait.
      const slow = worker({ maxFailures: 5, backoffBaseMs: 3_600_000 });
      while ((await slow.runOnce()) === 0);
      const outcome = await retryDelivery(
        inbox,
        { provider: 'stripe', externalId: 'evt_1' },
        { expected: { status: 'pending', attempts: 1 } },
      );
      expect(outcome).toMatchObject({ retried: false, reason: 'changed' });
      const now = (await inbox.find('stripe', 'evt_1'))!;
      expect(now).toMatchObject({ status: 'pending', attempts: 2 });
      expect(now.availableAt.getTime()).toBeGreaterThan(Date.now() + 60_000);
    });

    it('retry of every dead delivery: one run to done after the listing stays done and is reported left as it is', async () => {
      await dead('evt_1', 'evt_2', 'evt_3');
      const raced = new RacedInbox(inbox).arm(() => retriedAndRunElsewhere('evt_2'));
      const result = await retryDeadDeliveries(raced);

      expect(await inbox.find('stripe', 'evt_2')).toMatchObject({ status: 'done', attempts: 2 });
      expect(result.matched.map((d) => d.externalId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      expect(result.retried).toBe(2);
      expect(result.left.map((l) => [l.delivery.externalId, l.now?.status])).toEqual([
        ['evt_2', 'done'],
      ]);
      failing = false;
      while ((await worker().runOnce()) > 0);
      expect(Object.fromEntries(ran)).toEqual({ evt_1: 1, evt_2: 1, evt_3: 1 });
      expect(replays()).toEqual([]);
    });

    it('redeliver without force of a dead delivery run to done meanwhile: left done, its receipt kept', async () => {
      await dead('evt_1');
      const admin = new ReceiptsAdmin(opened.db, { table: `receipts_${n}` });
      const raced = new RacedInbox(inbox).arm(() => retriedAndRunElsewhere('evt_1'));
      const outcome = await redeliverDelivery(
        { inbox: raced, receipts: async () => admin },
        { provider: 'stripe', externalId: 'evt_1' },
      );
      expect(outcome).toMatchObject({ redelivered: false, reason: 'changed' });
      expect(outcome!.after).toMatchObject({ status: 'done' });
      expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'done' });
      expect(await admin.find({ provider: 'stripe', externalId: 'evt_1' })).toMatchObject({
        status: 'completed',
      });
    });

    it('release, forced, of the claim the operator saw: a claim taken over since is not released', async () => {
      const admin = new ReceiptsAdmin(opened.db, { table: `receipts_${n}` });
      const guard = new IdempotencyGuard(store);
      const key = new RequestKey('stripe', 'evt_1');
      /** A run whose handler holds its claim until `finish` is called; `started` once it runs. */
      const held = () => {
        let finish!: (error?: Error) => void;
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const result = guard.run(key, () => {
          started();
          return new Promise(
            (resolve, reject) => (finish = (e) => (e ? reject(e) : resolve('ok'))),
          );
        });
        return { result, running, finish: (error?: Error) => finish(error) };
      };
      const first = held();
      await first.running;
      const shown = (await admin.find(key))!;
      expect(shown).toMatchObject({ status: 'processing', attempts: 1 });
      // The first run fails; the provider's next delivery claims it again and is running now.
      first.finish(new Error('upstream 502'));
      await expect(first.result).rejects.toThrow('upstream 502');
      const second = held();
      await second.running;
      expect(await admin.find(key)).toMatchObject({ status: 'processing', attempts: 2 });

      const result = await admin.release(key, {
        staleAfterMs: 300_000,
        force: true,
        expected: { attempts: shown.attempts, claimedAt: shown.claimedAt },
      });
      expect(result).toMatchObject({ released: false, reason: 'changed' });
      second.finish();
      await expect(second.result).resolves.toMatchObject({ response: 'ok', attempts: 2 });
      expect(await admin.find(key)).toMatchObject({ status: 'completed', attempts: 2 });
    });

    it(
      `racing loop: a running worker and two operators retrying every dead delivery, ${ROUNDS} rounds of ${PER_ROUND}: each is booked once, none is replayed, every retry is counted once`,
      async () => {
        const running = worker({ pollIntervalMs: 2, concurrency: 4 });
        for (let round = 0; round < ROUNDS; round++) {
          const ids = Array.from({ length: PER_ROUND }, (_, i) => `r${round}_${i}`);
          await dead(...ids);
          failing = false;
          running.start();
          const operator = async () => {
            const results = [];
            for (;;) {
              const result = await retryDeadDeliveries(inbox);
              results.push(result);
              if (result.matched.length === 0) return results;
            }
          };
          const [a, b] = await Promise.all([operator(), operator()]);
          await running.stop();
          while ((await worker().runOnce()) > 0);
          // No delivery went back to pending once done: none was replayed, each booked once.
          expect(replays()).toEqual([]);
          for (const id of ids)
            expect(await inbox.find('stripe', id)).toMatchObject({ status: 'done' });
          expect(await notBookedOnce(ids)).toEqual([]);
          const all = [...a, ...b];
          // Each dead delivery went back to pending exactly once, by one of the two.
          expect(all.reduce((sum, r) => sum + r.retried, 0)).toBe(PER_ROUND);
          // What was left was no longer dead as listed: retried by the other, or further on.
          for (const { delivery, now } of all.flatMap((r) => r.left))
            expect(now?.status === 'dead' && now.attempts === delivery.attempts).toBe(false);
        }
      },
      LOOP_MS,
    );
  },
);
