/**
 * A worker process of the inbox proof (issue 12), run through test-support/register: an inbox
 * worker over the target database whose handler books one business row per delivery through the
 * receipt's transaction, fails the first attempt of the "flaky" deliveries and every attempt of the
 * poison ones (which therefore end dead). The victim SIGKILLs
 * itself inside its n-th handler run (`dieInHandler`), its business write uncommitted; the others
 * are stopped with SIGTERM, wired to `worker.stop()` as docs/inbox.md shows.
 */
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { SqlInbox, SqlStore } from '../../src';
import {
  type InboxChildTask,
  isFlaky,
  isPoison,
  POISON_ERROR,
  POISON_MAX_FAILURES,
} from './inbox-proof-shared';
import { connect } from './targets';

const task = JSON.parse(process.argv[2]!) as InboxChildTask;
const send = (message: unknown) => process.send?.(message);

async function main(): Promise<void> {
  const { db, sql, close } = connect(task.target);
  let handled = 0;
  const worker = createInboxWorker({
    inbox: new SqlInbox(db, { table: task.inboxTable }),
    store: new SqlStore(db, { table: task.receiptsTable }) as SqlStore,
    concurrency: 8,
    pollIntervalMs: 20,
    visibilityTimeoutSeconds: task.visibilityTimeoutSeconds,
    maxFailures: POISON_MAX_FAILURES,
    backoffBaseMs: 50,
    backoffMaxMs: 500,
    handlers: {
      stripe: async (delivery, { transaction }) => {
        const { id } = JSON.parse(delivery.body.toString('utf8')) as { id: string };
        await sql.query(
          `INSERT INTO ${task.effects} (id, pid) VALUES (?, ?)`,
          [id, process.pid],
          transaction,
        );
        // The victim dies here: its business write uncommitted, the rest of its batch leased.
        if (++handled === task.dieInHandler) process.kill(process.pid, 'SIGKILL');
        if (delivery.attempts === 1 && isFlaky(id)) throw new Error('flaky first attempt');
        // Always, after its business write: the write rolls back each time, and it ends dead.
        if (isPoison(id)) throw new Error(POISON_ERROR);
        return { booked: id };
      },
    },
  });
  process.once('SIGTERM', () => {
    worker
      .stop()
      .then(close)
      .then(
        () => process.exit(0),
        () => process.exit(3),
      );
  });
  send({ type: 'ready' });
  worker.start();
}

main().catch((error) => {
  send({ type: 'error', error: String(error?.stack ?? error) });
  process.exit(1);
});
