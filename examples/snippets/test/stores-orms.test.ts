/** docs/stores.md: SqlStore over Kysely, Drizzle and postgres-js, each snippet run twice on a real database. */
import Database from 'better-sqlite3';
import pg from 'pg';
import { drizzleExample } from '../src/stores-drizzle';
import { kyselyExample } from '../src/stores-kysely';
import { postgresExample } from '../src/stores-postgres';
import { pgDatabase, sqliteFile } from './helpers/databases';

afterEach(() => {
  delete process.env.DATABASE_URL;
  delete process.env.DATABASE_FILE;
  jest.restoreAllMocks();
});

const ordersOn = async (url: string) => {
  const setup = new pg.Pool({ connectionString: url });
  await setup.query(
    "CREATE TABLE orders (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false); INSERT INTO orders (id) VALUES ('ord_1')",
  );
  return setup;
};

it('Kysely on PostgreSQL: the order is paid once; the second delivery is a replay', async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_kysely');
  const setup = await ordersOn(process.env.DATABASE_URL);
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const first = await kyselyExample();
  const second = await kyselyExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(log.mock.calls).toEqual([[false], [true]]);
    expect((await setup.query('SELECT paid FROM orders')).rows).toEqual([{ paid: true }]);
  } finally {
    await Promise.all([first.db.destroy(), second.db.destroy(), setup.end()]);
  }
});

it('Drizzle on a SQLite file: one push row for two deliveries', async () => {
  process.env.DATABASE_FILE = sqliteFile('snippets-drizzle');
  const setup = new Database(process.env.DATABASE_FILE);
  setup.exec('CREATE TABLE pushes (delivery TEXT PRIMARY KEY, commits INTEGER NOT NULL)');
  const first = await drizzleExample();
  const second = await drizzleExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(setup.prepare('SELECT commits FROM pushes').all()).toEqual([{ commits: 3 }]);
  } finally {
    for (const db of [first.client, second.client, setup]) db.close();
  }
});

it('postgres-js: the order is paid once; the second delivery is a replay', async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_postgres_js');
  const setup = await ordersOn(process.env.DATABASE_URL);
  const first = await postgresExample();
  const second = await postgresExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect((await setup.query('SELECT paid FROM orders')).rows).toEqual([{ paid: true }]);
  } finally {
    await Promise.all([first.sql.end(), second.sql.end(), setup.end()]);
  }
});
