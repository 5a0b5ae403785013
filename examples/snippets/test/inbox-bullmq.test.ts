/** docs/inbox.md, "BullMQ": a stored delivery goes through the relay and the BullMQ worker, on PostgreSQL and the run's Redis. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import pg from 'pg';
import { startBullmq } from '../src/inbox-bullmq';
import { pgDatabase } from './helpers/databases';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let setup: pg.Pool;

beforeAll(async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_inbox_bullmq');
  process.env.REDIS_URL = process.env.WI_REDIS_URL;
  setup = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await InboxSchema.createTable(setup);
  await Schema.createTable(setup);
  await setup.query(
    "CREATE TABLE invoices (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false); INSERT INTO invoices (id) VALUES ('in_1')",
  );
});
afterAll(async () => {
  await setup.end();
  delete process.env.DATABASE_URL;
  delete process.env.REDIS_URL;
});

it('the relay queues a stored delivery, the worker pays the invoice once; SIGTERM stops both', async () => {
  const deliveries = new SqlInbox(setup);
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'invoice.paid',
    data: { object: { id: 'in_1' } },
  });
  await deliveries.enqueue({
    provider: 'stripe',
    externalId: 'evt_1',
    orderingKey: null,
    headers: {},
    body: Buffer.from(body),
  });
  const before = process.listeners('SIGTERM');
  const { relay, worker } = startBullmq();
  const onSigterm = process.listeners('SIGTERM').find((listener) => !before.includes(listener));
  try {
    for (let i = 0; i < 200; i++) {
      if ((await deliveries.find('stripe', 'evt_1'))?.status === DeliveryStatus.DONE) break;
      await sleep(25);
    }
    expect((await deliveries.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
    const { rows } = await setup.query('SELECT paid FROM invoices WHERE id = $1', ['in_1']);
    expect(rows).toEqual([{ paid: true }]);
  } finally {
    expect(onSigterm).toBeDefined();
    process.removeListener('SIGTERM', onSigterm!);
    await (onSigterm as () => Promise<void>)();
  }
  expect(relay.running).toBe(false);
  expect(await worker.isRunning()).toBe(false);
});
