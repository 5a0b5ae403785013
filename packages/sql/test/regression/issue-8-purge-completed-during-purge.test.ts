/**
 * Regression (issue 8, failure mode 4): purge must never delete a receipt that was taken over and
 * completed while the purge statement ran. A 40-day-old `failed` receipt is chosen by the purge's
 * batch; before the DELETE reaches it, a redelivery reclaims it and completes it (a transaction
 * that still holds the row when the purge starts, so the DELETE has to wait for it). PostgreSQL
 * re-checks only the DELETE's own WHERE on the row's new version, not the IN subquery that chose
 * it: with just `status IN ('completed','failed')` there, the fresh `completed` receipt was
 * deleted and the next redelivery ran the handler again. MariaDB's single-table DELETE … LIMIT
 * re-reads the locked row and evaluates its whole WHERE, so it is checked the same way.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore, type SqlConnection } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { dialects } from '../../src/dialects';
import { buildQueries } from '../../src/receipts/queries';
import { mysqlDatabase, pgDatabase } from '../helpers/databases';

const table = 'receipts_purge_completed';
const DAY = 86_400_000;
// An old failed receipt nobody touches: the same purge must still delete it.
const old = new RequestKey('stripe', 'evt_a_old');
const target = new RequestKey('stripe', 'evt_b_target');

interface Server {
  readonly db: SqlConnection;
  /** Sessions currently waiting for a row lock in a DELETE. */
  deleteWaiters(): Promise<number>;
  close(): Promise<void>;
}

async function postgres(): Promise<Server> {
  const pool = new pg.Pool({ connectionString: await pgDatabase('wi_issue8_purge'), max: 5 });
  return {
    db: pool,
    async deleteWaiters() {
      const { rows } = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM%'",
      );
      return rows[0].n as number;
    },
    close: () => pool.end(),
  };
}

async function mariadb(): Promise<Server> {
  const pool = mysql.createPool({
    uri: await mysqlDatabase('wi_issue8_purge'),
    connectionLimit: 5,
  });
  return {
    db: pool,
    async deleteWaiters() {
      // An autocommit DELETE waiting for a row lock shows in the process list, not in innodb_trx.
      const [rows] = await pool.query(
        "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE state = 'Updating' AND info LIKE 'DELETE FROM%'",
      );
      return Number((rows as Array<{ n: unknown }>)[0]!.n);
    },
    close: () => pool.end(),
  };
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not reached');
}

describe.each([
  ['PostgreSQL', postgres],
  ['MariaDB', mariadb],
])('purge racing a take-over that completes (%s)', (_name, open) => {
  let server: Server;
  beforeAll(async () => {
    server = await open();
    await Schema.createTable(server.db, { table });
  });
  afterAll(() => server.close());

  it('keeps the receipt completed while the purge waited for it; its redelivery is a replay', async () => {
    const store = new SqlStore(server.db, { table });
    const spec = dialects[store.dialect];
    const sql = createExecutor(server.db, 10_000);
    const queries = buildQueries(spec, table);
    for (const key of [old, target]) {
      expect((await store.claim(key, { now: 0, fingerprint: null })).won).toBe(true);
      expect(await store.fail(key, { now: 0, attempts: 1, error: 'boom' })).toBe(true);
    }
    // Both failed 40 days ago: a 30-day retention purges them.
    await sql.query(
      `UPDATE ${spec.quote(table)} SET finished_at = ${spec.minusMs('finished_at')}`,
      [40 * DAY],
    );

    // A redelivery takes the target over and completes it with the store's own statements, in a
    // transaction that commits only once the purge is waiting for the row.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let ready!: () => void;
    const done = new Promise<void>((resolve) => (ready = resolve));
    const redelivery = sql.transaction(async (transaction) => {
      const taken = await sql.query(
        queries.reclaim,
        [target.provider, target.externalId, 1, 60_000],
        transaction,
      );
      expect(taken.affected).toBe(1);
      const completed = await sql.query(
        queries.complete,
        ['"paid"', target.provider, target.externalId, 2],
        transaction,
      );
      expect(completed.affected).toBe(1);
      ready();
      await released;
    });
    await done;

    const purge = store.purge({ now: 0, olderThanMs: 30 * DAY });
    await until(async () => (await server.deleteWaiters()) > 0);
    release();
    await redelivery;

    expect(await purge).toBe(1);
    expect(await store.find(old, { now: 0 })).toBeNull();
    expect(await store.find(target, { now: 0 })).toMatchObject({
      status: 'completed',
      attempts: 2,
      response: '"paid"',
    });

    const handler = jest.fn(async () => 'charged again');
    const outcome = await new IdempotencyGuard(store).run(target, handler);
    expect(handler).not.toHaveBeenCalled();
    expect(outcome).toEqual({ response: 'paid', isReplay: true, attempts: 2 });
  });
});
