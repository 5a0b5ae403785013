/**
 * `inbox retry --all-dead` racing a real worker on PostgreSQL: the command lists the dead
 * deliveries, then retries them one by one; a delivery that another operator retried and a worker
 * ran to `done` after the listing must stay `done` (never `pending` again, to be replayed), and the
 * command must say so and exit with code 9. The race is put exactly there: the test holds a row
 * lock on the first delivery, so the command, listing done, waits on its first write; meanwhile the
 * second delivery is retried and run to the end by the worker; then the lock goes.
 */
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import { pgDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import pg from 'pg';
import { ExitCode } from '../../src';
import { cli } from '../helpers/cli';

let url: string;
let pool: pg.Pool;
let inbox: SqlInbox;
let store: SqlStore;
let failing = true;

beforeAll(async () => {
  url = await pgDatabase('wi_cli_retry_race');
  pool = new pg.Pool({ connectionString: url, max: 4 });
  await Schema.createTable(pool);
  await InboxSchema.createTable(pool);
  inbox = new SqlInbox(pool);
  store = new SqlStore(pool);
});
afterAll(() => pool.end());

const worker = () =>
  createInboxWorker({
    inbox,
    store: store as never,
    handlers: {
      stripe: async (d) => {
        if (failing) throw new Error('the ledger is down');
        return { booked: d.externalId };
      },
    },
    maxFailures: 1,
  });

/** Resolves once a backend other than `except` waits for a lock. */
async function someoneWaitsForALock(except: number): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> $1",
      [except],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('a delivery run to done after the listing is left done, named with what it is now; exit code 9', async () => {
  for (const externalId of ['evt_1', 'evt_2', 'evt_3'])
    await inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  while ((await worker().runOnce()) > 0);
  expect((await inbox.list({ status: 'dead' })).length).toBe(3);

  const lock = await pool.connect();
  let command: ReturnType<typeof cli> | undefined;
  try {
    await lock.query('BEGIN');
    await lock.query("SELECT id FROM webhook_inbox WHERE external_id = 'evt_1' FOR UPDATE");
    const { rows } = await lock.query('SELECT pg_backend_pid() AS pid');
    command = cli(['inbox', 'retry', '--all-dead', '--json'], { env: { DATABASE_URL: url } });
    await someoneWaitsForALock(Number(rows[0].pid));
    // Listed, and waiting to write evt_1: another operator retries evt_2, a worker runs it.
    const seen = (await inbox.find('stripe', 'evt_2'))!;
    expect(
      await inbox.redeliver('stripe', 'evt_2', { status: 'dead', leases: seen.leases }),
    ).toBeTruthy();
    failing = false;
    expect(await worker().runOnce()).toBe(1);
    expect((await inbox.find('stripe', 'evt_2'))?.status).toBe('done');
  } finally {
    await lock.query('ROLLBACK');
    lock.release();
  }
  const run = await command!;

  expect((await inbox.find('stripe', 'evt_2'))?.status).toBe('done');
  expect((await inbox.find('stripe', 'evt_1'))?.status).toBe('pending');
  expect((await inbox.find('stripe', 'evt_3'))?.status).toBe('pending');
  expect(run.code).toBe(ExitCode.LEFT);
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({ matched: 3, retried: 2 });
  expect(report.left).toEqual([
    expect.objectContaining({
      provider: 'stripe',
      externalId: 'evt_2',
      listed: { status: 'dead', leases: 1, attempts: 1 },
      now: expect.objectContaining({ status: 'done', leases: 2 }),
    }),
  ]);
  // Nothing went back for a worker: evt_2 is not claimed (or replayed) again.
  failing = false;
  expect(await worker().runOnce()).toBe(2);
  expect(await worker().runOnce()).toBe(0);
});

it('in words: retried, and each delivery left as it is with what happened to it', async () => {
  // Whatever the case before left due is run first.
  failing = false;
  while ((await worker().runOnce()) > 0);
  for (const externalId of ['evt_4', 'evt_5'])
    await inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  failing = true;
  while ((await worker().runOnce()) > 0);
  const lock = await pool.connect();
  let command: ReturnType<typeof cli> | undefined;
  try {
    await lock.query('BEGIN');
    await lock.query("SELECT id FROM webhook_inbox WHERE external_id = 'evt_4' FOR UPDATE");
    const { rows } = await lock.query('SELECT pg_backend_pid() AS pid');
    command = cli(['inbox', 'retry', '--all-dead'], { env: { DATABASE_URL: url } });
    await someoneWaitsForALock(Number(rows[0].pid));
    const seen = (await inbox.find('stripe', 'evt_5'))!;
    await inbox.redeliver('stripe', 'evt_5', { status: 'dead', leases: seen.leases });
    failing = false;
    expect(await worker().runOnce()).toBe(1);
  } finally {
    await lock.query('ROLLBACK');
    lock.release();
  }
  const run = await command!;
  expect(run.code).toBe(ExitCode.LEFT);
  expect(run.stdout).toMatch(
    /Retried 1 dead delivery: dead → pending, due now, failure counts from 0\.\nLeft as it is, no longer dead as listed: 1\.\n {2}stripe evt_5 was done meanwhile\n$/,
  );
  expect((await inbox.find('stripe', 'evt_5'))?.status).toBe('done');
});
