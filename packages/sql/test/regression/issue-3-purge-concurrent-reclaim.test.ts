/**
 * Regression: purge must never delete a `processing` receipt, also when a failed receipt is taken
 * over (reclaim) while the purge statement waits for its row lock. PostgreSQL re-checks only the
 * outer WHERE of a blocked DELETE on the row's new version (the IN subquery is not re-run), so the
 * status/finished_at condition has to be on the DELETE itself.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore, type SqlConnection } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { dialects } from '../../src/dialects';
import { mysqlDatabase, pgDatabase } from '../helpers/databases';

const table = 'receipts_purge_race';
const key = new RequestKey('stripe', 'evt_purge_race');

interface Server {
  readonly db: SqlConnection;
  /**
   * Runs `statements` in one transaction on a connection of its own, calls `ran` once they ran,
   * and commits when `commit` resolves.
   */
  holdTransaction(statements: string[], ran: () => void, commit: Promise<void>): Promise<void>;
  /** Sessions currently waiting for a row lock. */
  lockWaiters(): Promise<number>;
  close(): Promise<void>;
}

async function postgres(): Promise<Server> {
  const pool = new pg.Pool({ connectionString: await pgDatabase('wi_purge_race'), max: 5 });
  return {
    db: pool,
    async holdTransaction(statements, ran, commit) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const statement of statements) await client.query(statement);
        ran();
        await commit;
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    },
    async lockWaiters() {
      const { rows } = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
      );
      return rows[0].n as number;
    },
    close: () => pool.end(),
  };
}

async function mariadb(): Promise<Server> {
  const pool = mysql.createPool({ uri: await mysqlDatabase('wi_purge_race'), connectionLimit: 5 });
  return {
    db: pool,
    async holdTransaction(statements, ran, commit) {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        for (const statement of statements) await connection.query(statement);
        ran();
        await commit;
        await connection.commit();
      } finally {
        connection.release();
      }
    },
    async lockWaiters() {
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
])('purge racing a take-over of a failed receipt (%s)', (_name, open) => {
  let server: Server;
  beforeAll(async () => {
    server = await open();
    await Schema.createTable(server.db, { table });
  });
  afterAll(() => server.close());

  it('leaves the receipt that became processing while the purge waited', async () => {
    const store = new SqlStore(server.db, { table });
    const spec = dialects[store.dialect];
    const t = spec.quote(table);
    const claim = await store.claim(key, { now: 0, fingerprint: null });
    expect(claim.won).toBe(true);
    expect(await store.fail(key, { now: 0, attempts: 1, error: 'boom' })).toBe(true);
    // Finished two days ago: old enough for a one-day retention.
    const sql = createExecutor(server.db, 10_000);
    await sql.query(`UPDATE ${t} SET finished_at = ${spec.minusMs('finished_at')}`, [
      2 * 86_400_000,
    ]);

    // A redelivery takes the failed receipt over (the store's reclaim statement), and its
    // transaction is still open when purge runs.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let ran!: () => void;
    const updated = new Promise<void>((resolve) => (ran = resolve));
    const takeover = server.holdTransaction(
      [
        `UPDATE ${t} SET status = 'processing', attempts = attempts + 1, claimed_at = ${spec.now}, finished_at = NULL, error = NULL ` +
          `WHERE provider = 'stripe' AND external_id = 'evt_purge_race' AND attempts = 1 AND status = 'failed'`,
      ],
      ran,
      committed,
    );
    await updated;
    const purge = store.purge({ now: 0, olderThanMs: 86_400_000 });
    await until(async () => (await server.lockWaiters()) > 0);
    commit();
    await takeover;

    expect(await purge).toBe(0);
    const receipt = await store.find(key, { now: 0 });
    expect(receipt).toMatchObject({ status: 'processing', attempts: 2 });
  });
});
