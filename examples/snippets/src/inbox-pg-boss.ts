/** @module docs/inbox.md: inbox mode on pg-boss — the relay beside the endpoint, workers on pg-boss. Run by test/inbox-pg-boss.test.ts. */
// #region pg-boss
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { pgBossRelay, pgBossWorker } from '@webhook-idempotency/pg-boss';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
// #endregion pg-boss

/** The pg-boss setup of docs/inbox.md; `DATABASE_URL` names a database with an `invoices` table. */
export async function startPgBoss() {
  // #region pg-boss
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  const inbox = new SqlInbox(pool);
  const boss = new PgBoss(process.env.DATABASE_URL!);
  await boss.start();
  // pg-boss retries a failed job retryLimit times; expireInSeconds must cover one handler run.
  await boss.createQueue('webhooks', { retryLimit: 5, retryBackoff: true, expireInSeconds: 120 });

  // One process (or a few) hands stored deliveries to pg-boss…
  const relay = await pgBossRelay({ boss, queue: 'webhooks', inbox, providers: ['stripe'] });
  relay.start();

  // …and every worker process runs them, each once, through the receipts.
  await pgBossWorker({
    boss,
    queue: 'webhooks',
    inbox,
    store: new SqlStore(pool),
    visibilityTimeoutSeconds: 60, // one handler run at most; at most the queue's expireInSeconds
    workOptions: { batchSize: 8, burstWhenBatchFull: true }, // keep the pool above 2 × batchSize
    handlers: {
      stripe: async (delivery, { transaction }) => {
        const event = JSON.parse(delivery.body.toString('utf8'));
        if (event.type === 'invoice.paid')
          await transaction!.query('UPDATE invoices SET paid = true WHERE id = $1', [
            event.data.object.id,
          ]);
      },
    },
  });

  process.once('SIGTERM', async () => {
    await relay.stop();
    await boss.stop(); // waits for the jobs in flight
    await pool.end();
  });
  // #endregion pg-boss
  return { relay, boss, pool, inbox };
}
