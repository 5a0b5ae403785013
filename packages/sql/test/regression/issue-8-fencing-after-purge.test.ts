/**
 * Regression (issue 8, found by the model-based property test): `complete`/`fail` were fenced on
 * `attempts` only, and `attempts` restarts at 1 when a purged key is claimed anew. A worker that
 * claimed with attempts 1 and stalled through a takeover, a completion and a purge then passed
 * the fence: its late `complete` overwrote the new owner's claim, its late `fail` freed the new
 * owner's fresh claim so a third delivery ran the handler concurrently. The guard now fences on
 * the claim's identity (attempts and the `claimedAt` the store returned). Checked through
 * IdempotencyGuard on every kind of connection the store accepts; plus the exactness of that
 * claim-time comparison on columns wider than milliseconds (PostgreSQL µs, MariaDB DATETIME(6)).
 */
import {
  ClaimLost,
  IdempotencyGuard,
  RequestInProgress,
  RequestKey,
  type GuardEvent,
} from '@webhook-idempotency/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Schema, SqlStore } from '../../src';
import { shifter } from '../helpers/conformance';
import { mysqlDatabase, pgDatabase } from '../helpers/databases';
import { driverKinds, type OpenedKind } from '../helpers/kinds';

const table = 'receipts_reused_token';
const STALE_AFTER_SECONDS = 60;

/** A promise and its resolve/reject, for a handler held until the test lets it end. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe.each(driverKinds('reused-token'))(
  'a worker whose receipt was purged and claimed anew (%s)',
  (_name, open) => {
    let opened: OpenedKind;
    let advance: (ms: number) => Promise<void>;
    let run = 0;
    beforeAll(async () => {
      opened = await open();
      await Schema.createTable(opened.db, { table });
      advance = shifter(opened.db, table);
    });
    afterAll(() => opened.close());

    /**
     * Owner 1 claims and holds its handler; the claim goes stale, a redelivery takes it over and
     * completes, the completed receipt is purged (retention 0), and a redelivery claims anew with
     * attempts 1 and holds. Returns owner 1's still-running delivery and owner 3's hold.
     */
    async function purgedAndClaimedAnew(events: GuardEvent[]) {
      const store = new SqlStore(opened.db, { table });
      const guard = new IdempotencyGuard(store, {
        staleAfterSeconds: STALE_AFTER_SECONDS,
        onEvent: (event) => void events.push(event),
      });
      const key = new RequestKey('stripe', `evt_${++run}`);
      const first = deferred<string>();
      const firstStarted = deferred<void>();
      const owner1 = guard.run(key, () => {
        firstStarted.resolve();
        return first.promise;
      });
      owner1.catch(() => undefined);
      await firstStarted.promise;

      await advance(2 * STALE_AFTER_SECONDS * 1000);
      expect(await guard.run(key, async () => 'second')).toEqual({
        response: 'second',
        isReplay: false,
        attempts: 2,
      });
      await advance(1000);
      expect(await guard.purge({ retentionDays: 0 })).toBeGreaterThanOrEqual(1);
      expect(await store.find(key, { now: 0 })).toBeNull();
      // Shifting rows fakes the time of the takeover; the database clock itself must move on a
      // millisecond before the next claim, as it always has between two real claims (the threshold).
      await new Promise((resolve) => setTimeout(resolve, 5));

      const third = deferred<string>();
      const thirdStarted = deferred<void>();
      const owner3 = guard.run(key, () => {
        thirdStarted.resolve();
        return third.promise;
      });
      owner3.catch(() => undefined);
      await thirdStarted.promise;
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: 'processing',
        attempts: 1,
      });
      return { store, guard, key, first, owner1, third, owner3 };
    }

    it("owner 1's late completion is refused (ClaimLost) and the new owner's result is recorded", async () => {
      const events: GuardEvent[] = [];
      const { store, key, first, owner1, third, owner3 } = await purgedAndClaimedAnew(events);

      first.resolve('owner 1, late');
      await expect(owner1).rejects.toBeInstanceOf(ClaimLost);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'claim-lost', attempts: 1, operation: 'complete' }),
      );
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: 'processing',
        attempts: 1,
        response: null,
      });

      third.resolve('owner 3');
      expect(await owner3).toEqual({ response: 'owner 3', isReplay: false, attempts: 1 });
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: 'completed',
        attempts: 1,
        response: '"owner 3"',
      });
    });

    it("owner 1's late failure does not free the new claim: the next delivery is told to wait, no second handler runs", async () => {
      const events: GuardEvent[] = [];
      const { store, guard, key, first, owner1, third, owner3 } =
        await purgedAndClaimedAnew(events);

      const boom = new Error('owner 1 failed late');
      first.reject(boom);
      await expect(owner1).rejects.toBe(boom);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'claim-lost', attempts: 1, operation: 'fail' }),
      );
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: 'processing',
        attempts: 1,
        error: null,
      });

      const fourth = jest.fn(async () => 'fourth');
      await expect(guard.run(key, fourth)).rejects.toBeInstanceOf(RequestInProgress);
      expect(fourth).not.toHaveBeenCalled();

      third.resolve('owner 3');
      expect(await owner3).toMatchObject({ response: 'owner 3', isReplay: false });
    });
  },
);

/**
 * The claim time is compared in whole milliseconds, with the same expression the reads return: a
 * column that holds microseconds (a user's own migration, a wider type than Schema's) must still
 * let the owner complete and fail with the `claimedAt` it got back, and refuse 1 ms off.
 */
describe('the claim-time fence is exact on columns wider than milliseconds', () => {
  const wide = 'receipts_wide_clock';

  async function exactOn(store: SqlStore, addMicros: (externalId: string) => Promise<void>) {
    for (const operation of ['complete', 'fail'] as const) {
      const key = new RequestKey('stripe', `evt_wide_${operation}`);
      await store.claim(key, { now: 0, fingerprint: null });
      await addMicros(key.externalId);
      const { claimedAt } = (await store.find(key, { now: 0 }))!;
      const write = (at: Date) =>
        operation === 'complete'
          ? store.complete(key, { now: 0, attempts: 1, claimedAt: at, response: '"ok"' })
          : store.fail(key, { now: 0, attempts: 1, claimedAt: at, error: 'boom' });
      expect(await write(new Date(claimedAt.getTime() + 1))).toBe(false);
      expect(await write(new Date(claimedAt.getTime() - 1))).toBe(false);
      expect(await write(claimedAt)).toBe(true);
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: operation === 'complete' ? 'completed' : 'failed',
      });
    }
  }

  it('PostgreSQL TIMESTAMPTZ (µs)', async () => {
    const pool = new pg.Pool({
      connectionString: await pgDatabase('wi_issue8_wide_clock'),
      max: 2,
    });
    try {
      await Schema.createTable(pool, { table: wide });
      await pool.query(
        `ALTER TABLE ${wide} ALTER COLUMN claimed_at TYPE TIMESTAMPTZ, ALTER COLUMN finished_at TYPE TIMESTAMPTZ`,
      );
      await exactOn(new SqlStore(pool, { table: wide }), async (id) => {
        await pool.query(
          `UPDATE ${wide} SET claimed_at = claimed_at + INTERVAL '456 microseconds' WHERE external_id = $1`,
          [id],
        );
        const { rows } = await pool.query(
          `SELECT EXTRACT(MICROSECONDS FROM claimed_at)::int % 1000 AS us FROM ${wide} WHERE external_id = $1`,
          [id],
        );
        expect(rows[0].us).toBe(456);
      });
    } finally {
      await pool.end();
    }
  });

  it('MariaDB DATETIME(6)', async () => {
    const pool = mysql.createPool({
      uri: await mysqlDatabase('wi_issue8_wide_clock'),
      connectionLimit: 2,
    });
    try {
      await Schema.createTable(pool, { table: wide });
      await pool.query(
        `ALTER TABLE ${wide} MODIFY claimed_at DATETIME(6) NOT NULL, MODIFY finished_at DATETIME(6) NULL`,
      );
      await exactOn(new SqlStore(pool, { table: wide }), async (id) => {
        await pool.query(
          `UPDATE ${wide} SET claimed_at = claimed_at + INTERVAL 456 MICROSECOND WHERE external_id = ?`,
          [id],
        );
        const [rows] = await pool.query(
          `SELECT MICROSECOND(claimed_at) % 1000 AS us FROM ${wide} WHERE external_id = ?`,
          [id],
        );
        expect((rows as Array<{ us: number }>)[0]!.us).toBe(456);
      });
    } finally {
      await pool.end();
    }
  });
});
