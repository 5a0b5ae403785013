/**
 * Issue 12's proof on the BullMQ bridge (one PostgreSQL, one Redis): 2,000 stored deliveries handed
 * to BullMQ by a running relay, 4 worker processes, every fifth delivery failing its first attempt,
 * duplicates arriving meanwhile (at the endpoint, and as repeated jobs in BullMQ: its at-least-once
 * delivery), one worker SIGKILLed mid-batch. Every delivery is booked exactly once, the failed ones
 * were retried, and nothing is left unfinished. 600 deliveries in `pnpm test`, 2,000 in
 * `pnpm test:proof` (WI_PROOF=1), 10,000 with `WI_SOAK=1`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { leaseCount, type QueuedDelivery } from '@webhook-idempotency/core/adapter';
import { Queue } from 'bullmq';
import { bullmqRelay } from '../src';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import { connect, type Connected, fixture, targets } from './helpers/fixture';
import { redisConnection } from './helpers/redis';
import type { StormTask } from './helpers/storm-child';

const DELIVERIES = bySize({ small: 600, full: 2_000, soak: 10_000 });
const WORKERS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

jest.setTimeout(180_000);

const children: ChildProcess[] = [];
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const close of closers.reverse()) await close();
});

it(`${DELIVERIES} deliveries, ${WORKERS} BullMQ workers, flaky first attempts, duplicates, one worker killed: each booked once`, async () => {
  const [, open] = targets('bullmq_proof')[0]!; // PostgreSQL
  const target = await open();
  const connected: Connected = connect(target);
  closers.push(() => connected.close());
  const f = await fixture(connected, 'proof');
  await connected.sql.query(
    `CREATE TABLE ${f.tables.effects}_failed (id VARCHAR(200) PRIMARY KEY)`,
    [],
  );
  const queueName = `proof-${process.pid}`;
  const queue = new Queue<QueuedDelivery>(queueName, { connection: redisConnection() });
  closers.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  const progress = new Map<number, number>();
  const failures: string[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const task: StormTask = {
      target,
      tables: f.tables,
      queue: queueName,
      redisUrl: process.env.WI_REDIS_URL!,
    };
    const child = fork(join(__dirname, 'helpers', 'storm-child.ts'), [JSON.stringify(task)], {
      execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (m: { type: string; processed?: number; error?: string }) => {
      if (m.type === 'progress') progress.set(i, m.processed!);
      if (m.type === 'error') failures.push(m.error!);
    });
    children.push(child);
  }
  const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i}`);
  for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map(f.enqueue));

  const relay = bullmqRelay({
    inbox: f.inbox,
    queue,
    providers: ['stripe'],
    sendSize: 100,
    pollIntervalMs: 100,
  });
  relay.start();
  closers.push(() => relay.stop());
  // Duplicates while they are processed: the provider retrying (the inbox stores nothing twice),
  // and BullMQ delivering a job's data again under another job.
  let duplicatesStored = 0;
  for (let i = 0; i < DELIVERIES; i += 4) if (await f.enqueue(ids[i]!)) duplicatesStored++;
  const again = await f.inbox.list({ status: 'processing', limit: 200 });
  await queue.addBulk(
    again.map((d) => ({
      name: d.provider,
      data: { id: d.id, provider: d.provider, externalId: d.externalId, ...leaseCount(d.leases) },
      opts: { attempts: 10, backoff: { type: 'exponential', delay: 100 } },
    })),
  );

  // Kill one worker in the middle of its work.
  for (let i = 0; i < 1200 && (progress.get(0) ?? 0) < 50; i++) await sleep(50);
  expect(progress.get(0) ?? 0).toBeGreaterThanOrEqual(50);
  children[0]!.kill('SIGKILL');

  const done = async () => (await f.inbox.list({ status: 'done', limit: 10_000 })).length;
  for (let i = 0; i < 1200 && (await done()) < DELIVERIES; i++) await sleep(100);
  await relay.stop();

  expect(failures).toEqual([]);
  expect(duplicatesStored).toBe(0);
  expect(await done()).toBe(DELIVERIES);
  const booked = await f.effects();
  expect(booked).toHaveLength(DELIVERIES);
  expect(new Set(booked.map((row) => row.id)).size).toBe(DELIVERIES);
  const { rows } = await connected.sql.query(
    `SELECT COUNT(*) AS n FROM ${f.tables.effects}_failed`,
    [],
  );
  expect(Number(rows[0]!.n)).toBe(DELIVERIES / 5);
  expect(await f.inbox.list({ status: 'processing' })).toEqual([]);
  expect(await f.inbox.list({ status: 'pending' })).toEqual([]);
});
