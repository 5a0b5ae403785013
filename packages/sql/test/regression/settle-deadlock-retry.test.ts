/**
 * A settle write of the inbox (complete, retry, bury) chosen as a deadlock victim on MariaDB (as
 * a purge's DELETE, walking another index, makes one) was passed on as a store error: the
 * delivery then waited out a whole lease and was charged a failure. A real deadlock here: a
 * trigger makes the settle UPDATE lock a second row after the delivery's, and another connection
 * holds that second row, then asks for the delivery's: opposite orders. The other transaction
 * has written more, so InnoDB rolls the settle statement back; the store runs it again.
 */
import type { DeliveryLease } from '@webhook-idempotency/core/inbox';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import mysql from 'mysql2/promise';
import { mysqlDatabase } from '../helpers/databases';

let url: string;
let pool: mysql.Pool;
let inbox: SqlInbox;

beforeAll(async () => {
  url = await mysqlDatabase('wi_settle_deadlock');
  pool = mysql.createPool({ uri: url, connectionLimit: 4 });
  await InboxSchema.createTable(pool);
  await pool.query('CREATE TABLE settle_locks (id INT PRIMARY KEY, n INT NOT NULL)');
  await pool.query('INSERT INTO settle_locks VALUES (1, 0)');
  await pool.query('CREATE TABLE ballast (id INT PRIMARY KEY)');
  // Settles (a leased delivery leaving 'processing') lock the settle_locks row after the delivery's.
  await pool.query(
    "CREATE TRIGGER settle_locks_second_row AFTER UPDATE ON webhook_inbox FOR EACH ROW BEGIN IF OLD.status = 'processing' AND NEW.status <> 'processing' THEN UPDATE settle_locks SET n = n + 1 WHERE id = 1; END IF; END",
  );
  inbox = new SqlInbox(pool);
});
afterAll(() => pool.end());

async function deadlocks(): Promise<number> {
  const [rows] = await pool.query("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

/** Until the settle statement runs its trigger: it holds the delivery's row and waits for settle_locks. */
async function waitForTrigger(): Promise<void> {
  for (;;) {
    const [rows] = await pool.query(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'UPDATE settle_locks SET n = n + 1 %'",
    );
    if (Number((rows as { n: number }[])[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const settles: [string, (lease: DeliveryLease) => Promise<boolean>][] = [
  ['complete', (lease) => inbox.complete(lease)],
  ['retry', (lease) => inbox.retry(lease, { delayMs: 0, error: 'Error: boom' })],
  ['bury', (lease) => inbox.bury(lease, { error: 'Error: boom' })],
];

it.each(settles)('a deadlocked %s runs again and settles the delivery', async (name, settle) => {
  const externalId = `evt_${name}`;
  // A provider per case: the retried delivery is due again, and must not be claimed by the next.
  await inbox.enqueue({
    provider: name,
    externalId,
    orderingKey: null,
    headers: {},
    body: Buffer.from('{}'),
  });
  const [lease] = await inbox.lease({ providers: [name], limit: 1, leaseMs: 60_000 });
  expect(lease?.externalId).toBe(externalId);
  const before = await deadlocks();
  const other = await mysql.createConnection(url);
  try {
    await other.beginTransaction();
    // Heavier than the settle statement, so InnoDB picks the settle as the victim.
    await other.query(
      `INSERT INTO ballast (id) VALUES ${Array.from({ length: 50 }, (_, i) => `(${lease!.id * 100 + i})`).join(', ')}`,
    );
    await other.query('UPDATE settle_locks SET n = n + 100 WHERE id = 1');
    // The settle locks the delivery's row, then waits in its trigger for settle_locks.
    const settled = settle(lease!);
    settled.catch(() => undefined);
    await waitForTrigger();
    // Now the other transaction asks for the delivery's row: a cycle, and the settle is its victim.
    await other.query('SELECT id FROM webhook_inbox WHERE id = ? FOR UPDATE', [lease!.id]);
    await other.commit();
    expect(await settled).toBe(true);
  } finally {
    await other.end();
  }
  expect(await deadlocks()).toBeGreaterThan(before);
  const stored = await inbox.find(name, externalId);
  expect(stored?.status).toBe(name === 'complete' ? 'done' : name === 'bury' ? 'dead' : 'pending');
  if (name === 'retry') expect(stored?.failures).toBe(1);
});
