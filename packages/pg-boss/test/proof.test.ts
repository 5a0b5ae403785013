/**
 * Issue 12's proof on the pg-boss bridge (one PostgreSQL): 2,000 stored deliveries handed to
 * pg-boss by a running relay, 4 consumer processes, every fifth delivery failing its first
 * attempt, duplicates arriving meanwhile (at the endpoint, and as repeated jobs in pg-boss: its
 * at-least-once delivery), one consumer SIGKILLed mid-batch. Every delivery is booked exactly
 * once, the failed ones were retried, and nothing is left processing. 600 deliveries in `pnpm test`, 2,000 in
 * `pnpm test:proof` (WI_PROOF=1), 10,000 with `WI_SOAK=1`.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { InboxSchema, Schema } from '@webhook-idempotency/sql';
import type { PgBoss } from 'pg-boss';
import { pgDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import { pgBossRelay } from '../src';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import { bossFor, open, type Tables } from './helpers/setup';

const DELIVERIES = bySize({ small: 600, full: 2_000, soak: 10_000 });
const CONSUMERS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

jest.setTimeout(180_000);

let boss: PgBoss;
const children: ChildProcess[] = [];
const pools: Array<{ end(): Promise<void> }> = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await boss?.stop({ graceful: false });
  for (const pool of pools) await pool.end();
});

it(`${DELIVERIES} deliveries, ${CONSUMERS} consumers, flaky first attempts, duplicates, one consumer killed: each booked once`, async () => {
  const tables: Tables = { url: await pgDatabase('wi_pg_boss_proof'), suffix: 'proof' };
  const { names, pool, inbox } = open(tables);
  pools.push(pool);
  await InboxSchema.createTable(pool, { table: names.inbox });
  await Schema.createTable(pool, { table: names.receipts });
  await pool.query(`CREATE TABLE ${names.effects} (id TEXT NOT NULL)`);
  await pool.query(`CREATE TABLE ${names.effects}_failed (id TEXT PRIMARY KEY)`);
  boss = bossFor(tables.url);
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue(names.queue, { expireInSeconds: 6, retryLimit: 4, retryDelay: 0 });

  const progress = new Map<number, number>();
  const failures: string[] = [];
  for (let i = 0; i < CONSUMERS; i++) {
    const child = fork(
      join(__dirname, 'helpers', 'consumer-child.ts'),
      [JSON.stringify({ ...tables, hang: 'none', flaky: true, visibility: 6 })],
      {
        execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    child.on('message', (m: { type: string; processed?: number; error?: string }) => {
      if (m.type === 'progress') progress.set(i, m.processed!);
      if (m.type === 'error') failures.push(m.error!);
    });
    children.push(child);
  }
  const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i}`);
  const store = (id: string) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId: id,
      orderingKey: null,
      headers: {},
      body: Buffer.from(JSON.stringify({ id })),
    });
  for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map(store));

  const relay = await pgBossRelay({
    boss,
    queue: names.queue,
    inbox,
    providers: ['stripe'],
    sendSize: 100,
    pollIntervalMs: 100,
  });
  relay.start();
  // Duplicates while they are processed: the provider retrying (the inbox stores nothing twice),
  // and pg-boss delivering a job's data again under another job.
  let duplicatesStored = 0;
  for (let i = 0; i < DELIVERIES; i += 4) if (await store(ids[i]!)) duplicatesStored++;
  const again = await inbox.list({ status: 'processing', limit: 200 });
  await boss.insert(
    names.queue,
    again.map((d) => ({
      data: { id: d.id, provider: d.provider, externalId: d.externalId, ...leaseCount(d.leases) },
    })),
  );

  // Kill one consumer in the middle of its work.
  for (let i = 0; i < 1200 && (progress.get(0) ?? 0) < 50; i++) await sleep(50);
  expect(progress.get(0) ?? 0).toBeGreaterThanOrEqual(50);
  children[0]!.kill('SIGKILL');

  const done = async () =>
    (await pool.query(`SELECT count(*)::int AS n FROM ${names.inbox} WHERE status = 'done'`))
      .rows[0].n as number;
  for (let i = 0; i < 600 && (await done()) < DELIVERIES; i++) await sleep(50);
  await relay.stop();
  if ((await done()) < DELIVERIES) {
    const stuck = await pool.query(
      `SELECT id, external_id, status, attempts, failures, last_error, available_at - now() AS due FROM ${names.inbox} WHERE status <> 'done' LIMIT 5`,
    );
    console.log(stuck.rows);
    const jobs = await pool.query(
      `SELECT state, data, retry_count, output FROM pgboss.job WHERE data->>'externalId' = ANY($1)`,
      [stuck.rows.map((r) => r.external_id)],
    );
    console.log(JSON.stringify(jobs.rows, null, 1));
    const receipts = await pool.query(
      `SELECT * FROM ${names.receipts} WHERE external_id = ANY($1)`,
      [stuck.rows.map((r) => r.external_id)],
    );
    console.log(receipts.rows);
  }

  expect(failures).toEqual([]);
  expect(duplicatesStored).toBe(0);
  expect(await done()).toBe(DELIVERIES);
  const booked = await pool.query(
    `SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids FROM ${names.effects}`,
  );
  expect(booked.rows[0]).toEqual({ rows: DELIVERIES, ids: DELIVERIES });
  const retried = await pool.query(`SELECT count(*)::int AS n FROM ${names.effects}_failed`);
  expect(retried.rows[0].n).toBe(DELIVERIES / 5);
  const left = await pool.query(
    `SELECT count(*)::int AS n FROM ${names.inbox} WHERE status <> 'done'`,
  );
  expect(left.rows[0].n).toBe(0);
});
