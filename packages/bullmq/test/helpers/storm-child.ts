/**
 * A BullMQ consumer process of the storm proof, run through test-support/register: our processor
 * over PostgreSQL, booking one business row per delivery through the receipt's transaction. Every
 * fifth delivery fails its first attempt, whichever process runs it (a row in `<effects>_failed`
 * says it already failed once). Reports every 50 deliveries processed over IPC.
 */
import { Worker } from 'bullmq';
import { bullmqProcessor } from '../../src';
import { book, connect, fixtureOf, type Tables, type Target } from './fixture';
import { redisConnection } from './redis';

/** What the test tells the child. */
export interface StormTask {
  readonly target: Target;
  readonly tables: Tables;
  readonly queue: string;
  readonly redisUrl: string;
}

const task = JSON.parse(process.argv[2]!) as StormTask;

async function main(): Promise<void> {
  const connected = connect(task.target);
  const { inbox, store } = fixtureOf(connected, task.tables);
  const booking = book(connected, task.tables);
  let processed = 0;
  const worker = new Worker(
    task.queue,
    bullmqProcessor({
      inbox,
      store: store as never,
      visibilityTimeoutSeconds: 6,
      handlers: {
        stripe: async (delivery, context) => {
          if (Number(delivery.externalId.slice(4)) % 5 === 0) {
            const first = await connected.sql.query(
              `INSERT INTO ${task.tables.effects}_failed (id) VALUES (?) ON CONFLICT DO NOTHING`,
              [delivery.externalId],
            );
            if (first.affected === 1) throw new Error('the first attempt fails');
          }
          return booking(delivery, context);
        },
      },
      onEvent: (event) => {
        if (event.type === 'processed' && ++processed % 50 === 0)
          process.send?.({ type: 'progress', processed });
      },
    }),
    {
      connection: redisConnection(task.redisUrl),
      concurrency: 8,
      lockDuration: 3000,
      stalledInterval: 1000,
    },
  );
  worker.on('error', (error) => process.send?.({ type: 'error', error: String(error) }));
  await worker.waitUntilReady();
  process.send?.({ type: 'ready' });
}

main().catch((error) => {
  process.send?.({ type: 'error', error: String(error) });
});
