/**
 * A consumer outage longer than the relay's handoff budget (maxHandoffs × handoffTimeoutSeconds)
 * on a real pg-boss schema: the jobs wait in the queue, the relay asks pg-boss about each lapsed
 * handoff and extends it instead of counting a failure, and once a consumer starts every delivery
 * is processed exactly once; none is dead that never ran.
 */
import type { InboxEvent } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema } from '@webhook-idempotency/sql';
import type { PgBoss } from 'pg-boss';
import { pgDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import { pgBossJobId, pgBossRelay, pgBossWorker } from '../src';
import { bossFor, open } from './helpers/setup';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DELIVERIES = 5;

let url: string;
let boss: PgBoss;
let n = 0;

beforeAll(async () => {
  url = await pgDatabase('wi_pg_boss_outage');
  boss = bossFor(url);
  boss.on('error', () => {});
  await boss.start();
});
afterAll(() => boss.stop({ graceful: false }));

async function fixture() {
  const opened = open({ url, suffix: `outage_${++n}` });
  const { names, pool } = opened;
  await InboxSchema.createTable(pool, { table: names.inbox });
  await Schema.createTable(pool, { table: names.receipts });
  await pool.query(`CREATE TABLE ${names.effects} (id TEXT NOT NULL)`);
  // One attempt of at most 1 s: the longest a job can keep going is the 1 s handoff timeout.
  await boss.createQueue(names.queue, { retryLimit: 0, expireInSeconds: 1 });
  const events: InboxEvent[] = [];
  const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i}`);
  for (const id of ids)
    await opened.inbox.enqueue({
      provider: 'stripe',
      externalId: id,
      orderingKey: null,
      headers: {},
      body: Buffer.from(JSON.stringify({ id })),
    });
  const relay = await pgBossRelay({
    boss,
    queue: names.queue,
    inbox: opened.inbox,
    store: opened.store,
    providers: ['stripe'],
    handoffTimeoutSeconds: 1,
    maxHandoffs: 2,
    pollIntervalMs: 100,
    onEvent: (e) => void events.push(e),
  });
  const count = async (status: string) =>
    (await opened.inbox.list({ status: status as never, limit: 1000 })).length;
  return { ...opened, ids, events, relay, count };
}

it('jobs waiting out a consumer outage longer than maxHandoffs × handoffTimeoutSeconds are extended, not buried: each runs once', async () => {
  const f = await fixture();
  let worker: string | undefined;
  try {
    f.relay.start();
    // No consumer for 4 s: four handoff timeouts, twice the budget of lapses.
    await sleep(4000);
    expect(await f.count('dead')).toBe(0);
    expect(await f.count('processing')).toBe(DELIVERIES);
    // Still the first handoff of each: the lease was extended, never taken over.
    const first = (await f.inbox.find('stripe', 'evt_0'))!;
    expect(first).toMatchObject({ attempts: 1, failures: 0 });
    expect((await boss.getJobById(f.names.queue, pgBossJobId(first)))?.state).toBe('created');

    const runs = new Map<string, number>();
    worker = await pgBossWorker({
      boss,
      queue: f.names.queue,
      inbox: f.inbox,
      store: f.store,
      visibilityTimeoutSeconds: 1,
      workOptions: { pollingIntervalSeconds: 0.5, batchSize: DELIVERIES },
      handlers: {
        stripe: async (delivery, context) => {
          runs.set(delivery.externalId, (runs.get(delivery.externalId) ?? 0) + 1);
          await f.book(delivery, context);
        },
      },
    });
    for (let i = 0; i < 400 && (await f.count('done')) < DELIVERIES; i++) await sleep(50);
    expect(await f.count('done')).toBe(DELIVERIES);
    expect(await f.count('dead')).toBe(0);
    expect([...runs.entries()].sort()).toEqual(f.ids.map((id) => [id, 1]));
    const { rows } = await f.pool.query(`SELECT id FROM ${f.names.effects} ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual(f.ids);
    expect(f.events.filter((e) => e.type === 'dead')).toEqual([]);
    expect(f.events.filter((e) => e.type === 'queued')).toHaveLength(1);
  } finally {
    await f.relay.stop();
    if (worker !== undefined) await boss.offWork(f.names.queue, { id: worker, wait: true });
    await f.pool.end();
  }
});
