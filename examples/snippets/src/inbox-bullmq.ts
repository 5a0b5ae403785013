/** @module docs/inbox.md, "BullMQ": the relay and a BullMQ worker over a `pg` Pool and Redis. Run by test/inbox-bullmq.test.ts. */
// #region bullmq
import pg from 'pg';
import { Queue, Worker } from 'bullmq';
import { bullmqProcessor, bullmqRelay } from '@webhook-idempotency/bullmq';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
// #endregion bullmq

/** The relay and worker of docs/inbox.md; `DATABASE_URL` has an `invoices` table, `REDIS_URL` is a Redis. */
export function startBullmq(): { relay: ReturnType<typeof bullmqRelay>; worker: Worker } {
  // #region bullmq
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  const connection = { url: process.env.REDIS_URL, maxRetriesPerRequest: null };
  const inbox = new SqlInbox(pool);

  // Hands stored deliveries to the queue: one job per delivery, its data a reference, never the body.
  const queue = new Queue('webhooks', { connection });
  const relay = bullmqRelay({ inbox, queue, providers: ['stripe'] });
  relay.start();

  // Runs each job's handler once through the receipts, and marks the delivery done (or dead).
  const processor = bullmqProcessor({
    inbox,
    store: new SqlStore(pool),
    handlers: {
      stripe: async (delivery, { transaction }) => {
        const event = JSON.parse(delivery.body.toString('utf8'));
        if (event.type === 'invoice.paid') {
          await transaction!.query('UPDATE invoices SET paid = true WHERE id = $1', [
            event.data.object.id,
          ]);
        }
      },
    },
  });
  const worker = new Worker('webhooks', processor, { connection, concurrency: 8 });

  process.once('SIGTERM', async () => {
    await relay.stop();
    await worker.close(); // waits for the jobs in flight
    await queue.close();
    await pool.end();
  });
  // #endregion bullmq
  return { relay, worker };
}
