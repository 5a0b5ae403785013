/**
 * A consumer process for the kill tests: a pg-boss worker running the inbox consumer. With
 * `hang: 'before-commit'` its handler writes the booking and then waits forever (the transaction
 * stays open); with `hang: 'after-commit'` the process freezes right after the delivery is marked
 * done, before pg-boss records the job as completed. With `hang: 'none'` and `flaky` it is one of
 * the storm's consumers: every fifth delivery fails its first attempt (across all processes), and
 * it reports how many it processed. It reports over IPC and waits to be SIGKILLed.
 */
import { pgBossWorker } from '../../src';
import { bossFor, open, type Tables } from './setup';

const task = JSON.parse(process.argv[2]!) as Tables & {
  hang: 'before-commit' | 'after-commit' | 'none';
  /** A table of ids that already failed once: each delivery listed in `flaky` fails its first attempt. */
  flaky?: boolean;
  /** The consumer's visibility (seconds): the queue's expireInSeconds is at least this. */
  visibility?: number;
};

async function main(): Promise<void> {
  const { names, pool, inbox, store, book } = open(task);
  let processed = 0;
  const boss = bossFor(task.url);
  boss.on('error', () => {});
  await boss.start();
  await pgBossWorker({
    boss,
    queue: names.queue,
    inbox,
    store,
    visibilityTimeoutSeconds: task.visibility ?? 3,
    // A job holds up to two connections (its transaction, and the flaky check beside it).
    workOptions: { pollingIntervalSeconds: 0.5, batchSize: 8, burstWhenBatchFull: true },
    handlers: {
      stripe: async (delivery, context) => {
        if (task.flaky && Number(delivery.externalId.slice(4)) % 5 === 0) {
          const first = await pool.query(
            `INSERT INTO ${names.effects}_failed (id) VALUES ($1) ON CONFLICT DO NOTHING`,
            [delivery.externalId],
          );
          if (first.rowCount === 1) throw new Error('the first attempt fails');
        }
        await book(delivery, context);
        if (task.hang === 'before-commit') {
          process.send?.({ type: 'inside' });
          await new Promise(() => {});
        }
      },
    },
    onEvent: (event) => {
      if (event.type === 'processed' && ++processed % 50 === 0)
        process.send?.({ type: 'progress', processed });
      if (task.hang === 'after-commit' && event.type === 'processed') {
        process.send?.({ type: 'committed' });
        // Freeze the event loop: pg-boss never hears how the job ended.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
      }
    },
  });
  process.send?.({ type: 'ready' });
}

main().catch((error: unknown) => {
  process.send?.({ type: 'error', error: String(error) });
});
