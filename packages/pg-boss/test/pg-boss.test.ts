/**
 * The pg-boss bridge (issue 12) on a real PostgreSQL with a real pg-boss schema: stored deliveries
 * become jobs, each job runs its handler once through the receipts, pg-boss's retries and
 * redeliveries never double an effect, its last retry dead-letters the delivery, and a consumer
 * SIGKILLed mid-job is taken over by another once pg-boss expires the job.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError } from '@webhook-idempotency/core';
import type { InboxEvent, InboxHandler } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema } from '@webhook-idempotency/sql';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pgDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import { pgBossJobId, pgBossRelay, pgBossWorker } from '../src';
import { longestJobSeconds } from '../src/relay';
import { bossFor, open, type Tables } from './helpers/setup';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails with `what` when it has not within 30 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`still not true after 30 s: ${what}`);
}

let url: string;
let boss: PgBoss;
let n = 0;
const bossErrors: unknown[] = [];

beforeAll(async () => {
  url = await pgDatabase('wi_pg_boss');
  boss = bossFor(url);
  boss.on('error', (error) => void bossErrors.push(error));
  await boss.start();
});
afterAll(() => boss.stop({ graceful: false }));
afterEach(() => expect(bossErrors).toEqual([]));

/** One test's tables, queue, and helpers over them. */
async function fixture(queueOptions: Parameters<PgBoss['createQueue']>[1] = {}) {
  const tables: Tables = { url, suffix: `${++n}` };
  const opened = open(tables);
  const { names, pool, inbox } = opened;
  await InboxSchema.createTable(pool, { table: names.inbox });
  await Schema.createTable(pool, { table: names.receipts });
  await pool.query(`CREATE TABLE ${names.effects} (id TEXT NOT NULL)`);
  await boss.createQueue(names.queue, { retryDelay: 0, expireInSeconds: 3, ...queueOptions });
  const events: InboxEvent[] = [];
  const workers: string[] = [];
  return {
    ...opened,
    tables,
    events,
    enqueue: (id: string) =>
      inbox.enqueue({
        provider: 'stripe',
        externalId: id,
        orderingKey: null,
        headers: {},
        body: Buffer.from(JSON.stringify({ id })),
      }),
    relay: () =>
      pgBossRelay({
        boss,
        queue: names.queue,
        inbox,
        providers: ['stripe'],
        onEvent: (e) => void events.push(e),
      }),
    async work(handler: InboxHandler<pg.PoolClient> = opened.book) {
      const id = await pgBossWorker({
        boss,
        queue: names.queue,
        inbox,
        store: opened.store,
        visibilityTimeoutSeconds: 3,
        handlers: { stripe: handler },
        workOptions: { pollingIntervalSeconds: 0.5, batchSize: 5 },
        onEvent: (e) => void events.push(e),
      });
      workers.push(id);
    },
    effects: async () =>
      (await pool.query(`SELECT id FROM ${names.effects} ORDER BY id`)).rows.map(
        (r) => r.id as string,
      ),
    statusCount: async (status: string) =>
      (await inbox.list({ status: status as never, limit: 10_000 })).length,
    async close() {
      for (const id of workers) await boss.offWork(names.queue, { id, wait: true });
      await pool.end();
    },
  };
}

it('hands each stored delivery to pg-boss once; each job books it once and the delivery is done', async () => {
  const f = await fixture();
  try {
    const ids = Array.from({ length: 12 }, (_, i) => `evt_${String(i).padStart(2, '0')}`);
    for (const id of ids) await f.enqueue(id);
    expect(await (await f.relay()).runOnce()).toBe(12);
    // A second relay finds nothing due: each delivery is leased while pg-boss has it.
    expect(await (await f.relay()).runOnce()).toBe(0);
    await f.work();
    await eventually('every delivery done', async () => (await f.statusCount('done')) === 12);
    expect(await f.effects()).toEqual(ids);
    const job = await boss.getJobById(
      f.names.queue,
      pgBossJobId({ ...(await f.inbox.find('stripe', 'evt_00'))!, ...leaseCount(1) }),
    );
    expect(job?.state).toBe('completed');
  } finally {
    await f.close();
  }
});

it('a job pg-boss hands out again, and a send repeated after a failure, never double the effect', async () => {
  const f = await fixture();
  try {
    await f.enqueue('evt_1');
    const relay = await f.relay();
    await relay.runOnce();
    const stored = (await f.inbox.find('stripe', 'evt_1'))!;
    const job = {
      id: stored.id,
      provider: 'stripe',
      externalId: 'evt_1',
      ...leaseCount(stored.leases),
    };
    // The relay's send repeated (same handoff): pg-boss keeps one job.
    await boss.insert(f.names.queue, [{ id: pgBossJobId(job), data: job }]);
    expect(await boss.findJobs(f.names.queue, { data: job })).toHaveLength(1);
    await f.work();
    await eventually('done', async () => (await f.statusCount('done')) === 1);
    // At-least-once: the same job's data delivered again under another job.
    await boss.send(f.names.queue, job);
    await eventually('the second job skipped', async () =>
      f.events.some((e) => e.type === 'skipped' && e.reason === 'finished'),
    );
    expect(await f.effects()).toEqual(['evt_1']);
  } finally {
    await f.close();
  }
});

it('pg-boss retries a failed handler; one that fails on every retry ends dead in the inbox with its error', async () => {
  const f = await fixture({ retryLimit: 2, retryDelay: 0 });
  try {
    await f.enqueue('evt_flaky');
    await f.enqueue('evt_poison');
    const calls = new Map<string, number>();
    await (await f.relay()).runOnce();
    await f.work(async (delivery, context) => {
      const count = (calls.get(delivery.externalId) ?? 0) + 1;
      calls.set(delivery.externalId, count);
      if (delivery.externalId === 'evt_poison' || count === 1) throw new Error(`failed ${count}`);
      await f.book(delivery, context);
    });
    await eventually(
      'one done, one dead',
      async () => (await f.statusCount('done')) === 1 && (await f.statusCount('dead')) === 1,
    );
    expect(await f.effects()).toEqual(['evt_flaky']);
    // retryLimit 2: three attempts, the last one buries it.
    expect(calls.get('evt_poison')).toBe(3);
    expect(await f.inbox.find('stripe', 'evt_poison')).toMatchObject({
      status: 'dead',
      lastError: 'Error: failed 3',
    });
    // pg-boss records the job's failure after the processor returns it, so after the inbox's
    // dead-letter write: the job is failed, not retried again, once pg-boss has caught up.
    const poison = (await f.inbox.find('stripe', 'evt_poison'))!;
    const id = pgBossJobId({ ...poison, ...leaseCount(1) });
    await eventually(
      'the job failed in pg-boss',
      async () => (await boss.getJobById(f.names.queue, id))?.state === 'failed',
    );
    expect(calls.get('evt_poison')).toBe(3);
  } finally {
    await f.close();
  }
});

it('refuses a queue that does not exist or expires jobs sooner than a handler may run', async () => {
  const f = await fixture({ expireInSeconds: 2 });
  try {
    const base = { boss, inbox: f.inbox, store: f.store, handlers: { stripe: f.book } };
    await expect(pgBossWorker({ ...base, queue: 'no_such_queue' })).rejects.toMatchObject({
      option: 'queue',
    });
    await expect(
      pgBossWorker({ ...base, queue: f.names.queue, visibilityTimeoutSeconds: 3 }),
    ).rejects.toMatchObject({
      option: 'visibilityTimeoutSeconds',
    });
    const relayWith = (extra: object) =>
      pgBossRelay({ boss, queue: f.names.queue, inbox: f.inbox, providers: ['stripe'], ...extra });
    await expect(relayWith({ boss: {} })).rejects.toMatchObject({ option: 'boss' });
    await expect(relayWith({ queue: '' })).rejects.toMatchObject({ option: 'queue' });
    await expect(relayWith({ queue: 'no_such_queue' })).rejects.toMatchObject({ option: 'queue' });
    await expect(relayWith({ jobOptions: { singletonKey: 'x' } })).rejects.toMatchObject({
      option: 'jobOptions.singletonKey',
    });
    // retryLimit 50 × 2 s expiry: pg-boss may still retry a job after 100 s.
    await expect(
      relayWith({ handoffTimeoutSeconds: 60, jobOptions: { retryLimit: 50 } }),
    ).rejects.toMatchObject({ option: 'handoffTimeoutSeconds' });
    expect(longestJobSeconds({ retryLimit: 2, expireInSeconds: 10, retryDelay: 5 })).toBe(40);
    expect(
      longestJobSeconds({ retryLimit: 3, expireInSeconds: 10, retryDelay: 1, retryBackoff: true }),
    ).toBe(40 + 2 + 4 + 8);
  } finally {
    await f.close();
  }
});

it('a job with data no relay made is dead-lettered at once, not retried', async () => {
  const f = await fixture({ retryLimit: 5 });
  try {
    const id = await boss.send(f.names.queue, { hello: 'world' });
    await f.work();
    await eventually(
      'the job failed',
      async () => (await boss.getJobById(f.names.queue, id!))?.state === 'failed',
    );
    const job = await boss.getJobById(f.names.queue, id!, { includeMetadata: true } as never);
    expect(job?.retryCount).toBe(0);
  } finally {
    await f.close();
  }
});

describe.each(['before-commit', 'after-commit'] as const)(
  'a consumer SIGKILLed mid-job (%s)',
  (hang) => {
    it('pg-boss expires the job, another consumer takes it over, and the booking happens exactly once', async () => {
      const f = await fixture({ expireInSeconds: 3, retryLimit: 3, retryDelay: 0 });
      const child = fork(
        join(__dirname, 'helpers', 'consumer-child.ts'),
        [JSON.stringify({ ...f.tables, hang })],
        {
          execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        },
      );
      try {
        const messages: Array<{ type: string; error?: string }> = [];
        child.on('message', (m: { type: string }) => void messages.push(m));
        const next = (type: string) =>
          eventually(`the consumer says ${type}`, async () => {
            const failed = messages.find((m) => m.type === 'error');
            if (failed) throw new Error(`consumer failed: ${failed.error}`);
            return messages.some((m) => m.type === type);
          });
        await next('ready');
        await f.enqueue('evt_1');
        await (await f.relay()).runOnce();
        await next(hang === 'before-commit' ? 'inside' : 'committed');
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
        expect(await f.effects()).toEqual(hang === 'before-commit' ? [] : ['evt_1']);
        // This process's consumer takes the job over once pg-boss expires it (3 s).
        await f.work();
        await eventually('the delivery done', async () => (await f.statusCount('done')) === 1);
        await eventually('the job settled', async () => {
          const stored = (await f.inbox.find('stripe', 'evt_1'))!;
          return (
            (await boss.getJobById(f.names.queue, pgBossJobId({ ...stored, ...leaseCount(1) })))
              ?.state === 'completed'
          );
        });
        expect(await f.effects()).toEqual(['evt_1']);
        expect(await f.statusCount('processing')).toBe(0);
      } finally {
        child.kill('SIGKILL');
        await f.close();
      }
    });
  },
);

it('refuses a queue whose policy keeps one job per key: it would drop deliveries', async () => {
  const f = await fixture({ policy: 'short' });
  try {
    await expect(
      pgBossRelay({ boss, queue: f.names.queue, inbox: f.inbox, providers: ['stripe'] }),
    ).rejects.toMatchObject({ option: 'queue', message: expect.stringMatching(/"short"/) });
  } finally {
    await f.close();
  }
});

it('a handler that throws a ConfigError of its own is retried like any failure, then dead in the inbox', async () => {
  const f = await fixture({ retryLimit: 1, retryDelay: 0 });
  try {
    await f.enqueue('evt_1');
    let calls = 0;
    await (await f.relay()).runOnce();
    await f.work(async () => {
      calls++;
      throw new ConfigError('apiKey', 'is missing');
    });
    await eventually('dead', async () => (await f.statusCount('dead')) === 1);
    expect(calls).toBe(2);
    expect((await f.inbox.find('stripe', 'evt_1'))!.lastError).toMatch(/apiKey/);
  } finally {
    await f.close();
  }
});

it('a delivery whose handoffs keep lapsing (its consumers die on it) is dead after maxHandoffs, not handed over forever', async () => {
  const f = await fixture();
  try {
    await f.enqueue('evt_1');
    const relay = await pgBossRelay({
      boss,
      queue: f.names.queue,
      inbox: f.inbox,
      providers: ['stripe'],
      handoffTimeoutSeconds: 10,
      maxHandoffs: 2,
      onEvent: (e) => void f.events.push(e),
    });
    // Each handoff lapses: its job is gone from pg-boss (a job still queued would only be a
    // backlog, extended). A lease made short by hand plays the timeout.
    for (let handoff = 1; handoff <= 2; handoff++) {
      expect(await relay.runOnce()).toBe(1);
      const held = (await f.inbox.find('stripe', 'evt_1'))!;
      await boss.deleteJob(f.names.queue, pgBossJobId(held));
      await f.pool.query(`UPDATE ${f.names.inbox} SET available_at = now() - interval '1 second'`);
    }
    expect(await relay.runOnce()).toBe(1);
    const stored = (await f.inbox.find('stripe', 'evt_1'))!;
    expect(stored.status).toBe('dead');
    expect(stored.lastError).toMatch(/^LeaseExpired: 2 handoffs/);
    expect(f.events.filter((e) => e.type === 'queued')).toHaveLength(2);
    expect(f.events.at(-1)).toMatchObject({ type: 'dead' });
  } finally {
    await f.close();
  }
});
