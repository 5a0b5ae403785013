/**
 * The store's statements reach PostgreSQL and MariaDB as server-side prepared statements (parsed
 * and planned once per connection), and as plain queries with `preparedStatements: false` (for
 * poolers that cannot carry them). Asked of the servers themselves, on a one-connection pool.
 */
import { RequestKey } from '@webhook-idempotency/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Schema, SqlStore } from '../src';
import { mysqlDatabase, pgDatabase } from './helpers/databases';

/** A first delivery and its replay through `store`. */
async function deliverTwice(store: SqlStore<never>, id: string): Promise<void> {
  const key = new RequestKey('stripe', id);
  const first = await store.claim(key, { now: 0, fingerprint: null });
  expect(first.won).toBe(true);
  await store.complete(key, {
    now: 0,
    attempts: 1,
    claimedAt: first.receipt.claimedAt,
    response: '"ok"',
  });
  expect((await store.claim(key, { now: 0, fingerprint: null })).won).toBe(false);
  await store.purge({ now: 0, olderThanMs: 86_400_000, chunkSize: 10 });
}

describe('PostgreSQL (pg Pool)', () => {
  let url: string;
  beforeAll(async () => {
    url = await pgDatabase('wi_prepared');
  });

  /** Names of the statements prepared on the pool's one connection. */
  async function preparedNames(options: { preparedStatements?: boolean }): Promise<string[]> {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await Schema.createTable(pool);
      await deliverTwice(new SqlStore(pool, options) as SqlStore<never>, `evt_${Math.random()}`);
      const { rows } = await pool.query<{ name: string }>(
        'SELECT name FROM pg_prepared_statements ORDER BY name',
      );
      return rows.map((row) => row.name);
    } finally {
      await pool.end();
    }
  }

  it('sends claim, complete, replay and purge as named statements, once per connection', async () => {
    const names = await preparedNames({});
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) expect(name).toMatch(/^webhook_idempotency_[0-9a-f]{24}$/);
  });

  it('prepares nothing with preparedStatements: false', async () => {
    expect(await preparedNames({ preparedStatements: false })).toEqual([]);
  });
});

describe('MariaDB (mysql2 pool)', () => {
  let url: string;
  beforeAll(async () => {
    url = await mysqlDatabase('wi_prepared');
  });

  /** How many prepared-statement executions the pool's one connection made. */
  async function executions(options: { preparedStatements?: boolean }): Promise<number> {
    const pool = mysql.createPool({ uri: url, connectionLimit: 1 });
    try {
      await Schema.createTable(pool);
      await deliverTwice(new SqlStore(pool, options) as SqlStore<never>, `evt_${Math.random()}`);
      const [rows] = await pool.query("SHOW SESSION STATUS LIKE 'Com_stmt_execute'");
      return Number((rows as { Value: string }[])[0]?.Value);
    } finally {
      await pool.end();
    }
  }

  it('runs the statements through execute() (the purge LIMIT included)', async () => {
    expect(await executions({})).toBeGreaterThanOrEqual(4);
  });

  it('executes none with preparedStatements: false', async () => {
    expect(await executions({ preparedStatements: false })).toBe(0);
  });
});

it('refuses a preparedStatements that is not a boolean', () => {
  const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none', max: 1 });
  expect(() => new SqlStore(pool, { preparedStatements: 'yes' as never })).toThrow(
    /preparedStatements/,
  );
  return pool.end();
});

describe('MariaDB: a first delivery is two statements (claim, complete)', () => {
  let url: string;
  beforeAll(async () => {
    url = await mysqlDatabase('wi_two_statements');
  });

  /** Statements the one connection ran for a claim and its completion, and the receipt after. */
  async function firstDelivery(options: { preparedStatements?: boolean }) {
    const pool = mysql.createPool({ uri: url, connectionLimit: 1 });
    try {
      await Schema.createTable(pool);
      const store = new SqlStore(pool, options) as SqlStore<never>;
      const key = new RequestKey('stripe', `evt_${Math.random()}`);
      const questions = async () => {
        const [rows] = await pool.query("SHOW SESSION STATUS LIKE 'Questions'");
        return Number((rows as { Value: string }[])[0]?.Value);
      };
      const before = await questions();
      const claim = await store.claim(key, { now: 0, fingerprint: 'fp' });
      const completed = await store.complete(key, {
        now: 0,
        attempts: 1,
        claimedAt: claim.receipt.claimedAt,
        response: '"ok"',
      });
      // The second SHOW counts itself.
      const statements = (await questions()) - before - 1;
      return { claim, completed, statements, stored: await store.find(key, { now: 0 }) };
    } finally {
      await pool.end();
    }
  }

  it.each([
    ['prepared', {}],
    ['plain queries', { preparedStatements: false }],
  ])(
    '%s: the won claim carries its claim time, and complete is fenced on it',
    async (_, options) => {
      const { claim, completed, statements, stored } = await firstDelivery(options);
      expect(statements).toBe(2);
      expect(claim.won).toBe(true);
      expect(claim.receipt).toMatchObject({ status: 'processing', attempts: 1, fingerprint: 'fp' });
      expect(completed).toBe(true);
      expect(stored?.claimedAt.getTime()).toBe(claim.receipt.claimedAt.getTime());
      expect(stored).toMatchObject({ status: 'completed', response: '"ok"' });
    },
  );
});
