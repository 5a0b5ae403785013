/** @module docs/inbox.md: the inbox worker over a `pg` Pool, its SIGTERM wiring, retention and listings. Run by test/inbox.test.ts. */
// #region worker
import pg from 'pg';
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
// #endregion worker
// #region purge
import { DAY, IdempotencyGuard } from '@webhook-idempotency/core';
// #endregion purge

/** The worker of docs/inbox.md; `DATABASE_URL` names a database with an `invoices` table. */
export function startWorker(): { worker: ReturnType<typeof createInboxWorker>; pool: pg.Pool } {
  // #region worker
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  const worker = createInboxWorker({
    inbox: new SqlInbox(pool),
    store: new SqlStore(pool), // the receipts: business writes and receipt commit together
    handlers: {
      stripe: async (delivery, { transaction }) => {
        const event = JSON.parse(delivery.body.toString('utf8'));
        if (event.type === 'invoice.paid') {
          // transaction: a pg.PoolClient inside BEGIN; a throw rolls it back and retries later
          await transaction!.query('UPDATE invoices SET paid = true WHERE id = $1', [
            event.data.object.id,
          ]);
        }
      },
    },
  });
  worker.start();

  process.once('SIGTERM', async () => {
    await worker.stop(); // waits for the deliveries in flight (10 s), gives back the rest
    await pool.end();
  });
  // #endregion worker
  return { worker, pool };
}

/** The retention example: run it daily. Resolves with the deliveries and receipts deleted. */
export async function purgeOnce(pool: pg.Pool): Promise<[number, number]> {
  // #region purge
  const inbox = new SqlInbox(pool);
  const deliveries = await inbox.purge({ olderThanMs: 30 * DAY }); // done and dead, bodies included
  const receipts = await new IdempotencyGuard(new SqlStore(pool)).purge({ retentionDays: 30 });
  // #endregion purge
  return [deliveries, receipts];
}

/** The listing example: the dead deliveries received since `from`, a page and the page after it. */
export async function deadSince(pool: pg.Pool, from: Date) {
  // #region list
  const inbox = new SqlInbox(pool);
  const filter = { status: 'dead', receivedFrom: from } as const;
  const page = await inbox.list({ ...filter, limit: 50 });
  const next = await inbox.list({ ...filter, limit: 50, afterId: page.at(-1)?.id });
  // #endregion list
  return { page, next };
}
