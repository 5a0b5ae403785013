/** docs/inbox.md's pg-boss setup on PostgreSQL: a stored delivery is handed to pg-boss, the invoice paid once, SIGTERM stops it. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema } from '@webhook-idempotency/sql';
import pg from 'pg';
import { startPgBoss } from '../src/inbox-pg-boss';
import { pgDatabase } from './helpers/databases';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('hands a stored delivery to pg-boss, whose worker pays the invoice once; SIGTERM stops relay and workers', async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_inbox_pg_boss');
  const setup = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await setup.query(
    "CREATE TABLE invoices (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false); INSERT INTO invoices (id) VALUES ('in_1')",
  );
  await InboxSchema.createTable(setup);
  await Schema.createTable(setup);
  const before = process.listeners('SIGTERM');
  const { relay, inbox } = await startPgBoss();
  const onSigterm = process.listeners('SIGTERM').find((listener) => !before.includes(listener));
  try {
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'invoice.paid',
      data: { object: { id: 'in_1' } },
    });
    const delivery = { provider: 'stripe', externalId: 'evt_1', orderingKey: null, headers: {} };
    expect(await inbox.enqueue({ ...delivery, body: Buffer.from(body) })).toBe(true);
    for (
      let i = 0;
      i < 400 && (await inbox.find('stripe', 'evt_1'))?.status !== DeliveryStatus.DONE;
      i++
    )
      await sleep(25);
    expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
    expect((await setup.query('SELECT paid FROM invoices')).rows).toEqual([{ paid: true }]);
    expect(relay.running).toBe(true);
    await (onSigterm as () => Promise<void>)();
    expect(relay.running).toBe(false);
  } finally {
    if (onSigterm) process.removeListener('SIGTERM', onSigterm);
    await setup.end();
    delete process.env.DATABASE_URL;
  }
});
