/** docs/stores.md, docs/operations.md and packages/sql/README.md: each way to connect, run twice on a real database. */
import { ReceiptStatus } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import knex from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { up, down } from '../src/knex-migration';
import {
  boundedMemoryStore,
  consume,
  consumeInTransaction,
  memoryGuard,
  migrationSql,
  purgeOnce,
} from '../src/stores';
import { knexExample } from '../src/stores-knex';
import { mysqlExample } from '../src/stores-mysql';
import { pgExample } from '../src/stores-pg';
import { sqliteExample } from '../src/stores-sqlite';
import Database from 'better-sqlite3';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { ddlText } from './helpers/check-docs';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';

afterEach(() => {
  delete process.env.DATABASE_URL;
  delete process.env.DATABASE_FILE;
  jest.restoreAllMocks();
});

it('pg Pool: the order is paid once; the second delivery is a replay', async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_pg');
  const setup = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await setup.query(
    "CREATE TABLE orders (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false); INSERT INTO orders (id) VALUES ('ord_1')",
  );
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const first = await pgExample();
  const second = await pgExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(log.mock.calls).toEqual([[false], [true]]);
    expect((await setup.query('SELECT paid FROM orders')).rows).toEqual([{ paid: true }]);
  } finally {
    await Promise.all([first.pool.end(), second.pool.end(), setup.end()]);
  }
});

it('claim().begin() on a pg Pool: the order is paid once, a failed try leaves nothing', async () => {
  const pool = new pg.Pool({ connectionString: await pgDatabase('snippets_begin') });
  try {
    await Schema.createTable(pool);
    await pool.query(
      "CREATE TABLE orders (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false CHECK (NOT paid OR id <> 'ord_bad')); INSERT INTO orders (id) VALUES ('ord_1'), ('ord_bad')",
    );
    const guard = new IdempotencyGuard(new SqlStore(pool), { transactional: true });
    const key = new RequestKey('queue', 'msg-1');
    expect(await consumeInTransaction(guard, key, 'ord_1')).toEqual({ paid: 'ord_1' });
    expect(await consumeInTransaction(guard, key, 'ord_1')).toEqual({ paid: 'ord_1' });
    // The UPDATE breaks a CHECK: rolled back, the receipt failed, the order unpaid.
    const bad = new RequestKey('queue', 'msg-2');
    await expect(consumeInTransaction(guard, bad, 'ord_bad')).rejects.toThrow(/check constraint/);
    expect(await guard.find(bad)).toMatchObject({ status: ReceiptStatus.FAILED });
    expect((await pool.query('SELECT id, paid FROM orders ORDER BY id')).rows).toEqual([
      { id: 'ord_1', paid: true },
      { id: 'ord_bad', paid: false },
    ]);
  } finally {
    await pool.end();
  }
});

it('mysql2 pool: one build row for two deliveries', async () => {
  process.env.DATABASE_URL = await mysqlDatabase('snippets_mysql');
  const setup = mysql.createPool({ uri: process.env.DATABASE_URL });
  await setup.query('CREATE TABLE builds (sha VARCHAR(40) NOT NULL)');
  const first = await mysqlExample();
  const second = await mysqlExample();
  try {
    expect([first.response, second.response]).toEqual(['queued', 'queued']);
    expect((await setup.query('SELECT sha FROM builds'))[0]).toEqual([{ sha: '9f2c1e0' }]);
  } finally {
    await Promise.all([first.pool.end(), second.pool.end(), setup.end()]);
  }
});

it('knex on PostgreSQL: one payment row for two deliveries', async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_knex');
  const setup = knex({ client: 'pg', connection: process.env.DATABASE_URL });
  await setup.schema.createTable('payments', (t) => {
    t.string('id').primary();
    t.integer('amount').notNullable();
  });
  const first = await knexExample();
  const second = await knexExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(await setup('payments').select('id', 'amount')).toEqual([
      { id: '5305e3bab097f420a62ced0b', amount: 500000 },
    ]);
  } finally {
    await Promise.all([first.db.destroy(), second.db.destroy(), setup.destroy()]);
  }
});

it('better-sqlite3: one message row for two deliveries', async () => {
  process.env.DATABASE_FILE = sqliteFile('snippets-sqlite');
  const setup = new Database(process.env.DATABASE_FILE);
  setup.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const first = await sqliteExample();
  const second = await sqliteExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(setup.prepare('SELECT id, text FROM messages').all()).toEqual([
      { id: 123456789, text: '/start' },
    ]);
  } finally {
    first.db.close();
    second.db.close();
    setup.close();
  }
});

it('the knex migration file goes up (twice) and down', async () => {
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: sqliteFile('migration') },
    useNullAsDefault: true,
  });
  try {
    await up(db);
    await up(db);
    expect(await db.schema.hasTable('webhook_receipts')).toBe(true);
    await down(db);
    expect(await db.schema.hasTable('webhook_receipts')).toBe(false);
  } finally {
    await db.destroy();
  }
});

it('the split API books a payment once, replays it, and retries after a failure', async () => {
  const guard = memoryGuard();
  let bookings = 0;
  const book = async () => {
    bookings++;
    return { booked: true };
  };
  const paid = new RequestKey('payme', 'PerformTransaction:1');
  expect(await consume(guard, paid, book)).toEqual({ booked: true });
  expect(await consume(guard, paid, book)).toEqual({ booked: true });
  expect(bookings).toBe(1);
  const flaky = new RequestKey('payme', 'PerformTransaction:2');
  await expect(consume(guard, flaky, () => Promise.reject(new Error('bank down')))).rejects.toThrow(
    'bank down',
  );
  expect(await consume(guard, flaky, book)).toEqual({ booked: true });
  expect(bookings).toBe(2);
});

it('the bounded in-memory store drops finished receipts past its retention', async () => {
  let now = Date.UTC(2026, 0, 1);
  const guard = new IdempotencyGuard(boundedMemoryStore(), { clock: () => now });
  await guard.run(new RequestKey('stripe', 'evt_old'), () => 'ok');
  now += 3 * 86_400_000 + 1;
  await guard.run(new RequestKey('stripe', 'evt_new'), () => 'ok');
  expect(await guard.find(new RequestKey('stripe', 'evt_old'))).toBeNull();
});

it('Schema.statements as one .sql text equals the docs DDL', () => {
  expect(migrationSql()).toBe(`${ddlText('postgres')}\n`);
  expect(Schema.statements('postgres')).toHaveLength(6);
});

it('the in-memory guard replays; purge deletes per provider, each with its own retention', async () => {
  const guard = memoryGuard();
  await guard.run(new RequestKey('stripe', 'evt_1'), () => 'ok');
  expect((await guard.run(new RequestKey('stripe', 'evt_1'), () => 'again')).isReplay).toBe(true);

  let now = Date.UTC(2026, 0, 1);
  const timed = new IdempotencyGuard(new InMemoryStore(), { clock: () => now });
  await timed.run(new RequestKey('stripe', 'old'), () => 'ok');
  await timed.run(new RequestKey('github', 'old'), () => 'ok');
  await timed.run(new RequestKey('payme', 'old'), () => 'ok');
  now += 31 * 24 * 3600 * 1000;
  await timed.run(new RequestKey('stripe', 'new'), () => 'ok');
  expect(await purgeOnce(timed, providers.stripe({ secret: 'whsec_x' }))).toBe(2); // Stripe keeps 30 days, GitHub 7
  expect(await timed.find(new RequestKey('stripe', 'new'))).toMatchObject({
    status: ReceiptStatus.COMPLETED,
  });
  expect(await timed.find(new RequestKey('stripe', 'old'))).toBeNull();
  expect(await timed.find(new RequestKey('github', 'old'))).toBeNull();
  expect(await timed.find(new RequestKey('payme', 'old'))).toMatchObject({
    status: ReceiptStatus.COMPLETED,
  }); // not purged here
});
