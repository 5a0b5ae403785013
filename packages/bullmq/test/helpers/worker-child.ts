/**
 * A BullMQ worker process of the crash tests, run through test-support/register: our processor
 * over the target database, booking one business row per delivery through the receipt's
 * transaction. It SIGKILLs itself at `dieAt`: inside the handler (its write uncommitted), after
 * the commit but before the inbox row is marked done, or after that but before BullMQ marks the
 * job completed. Before dying it writes `marker` (synchronously), so the test knows it got there.
 */
import { writeFileSync } from 'node:fs';
import type { DeliveryLease } from '@webhook-idempotency/core/inbox';
import { Worker } from 'bullmq';
import { bullmqProcessor } from '../../src';
import { book, connect, fixtureOf, type Tables, type Target } from './fixture';
import { redisConnection } from './redis';

/** What the test tells the child. */
export interface CrashTask {
  readonly target: Target;
  readonly tables: Tables;
  readonly queue: string;
  readonly redisUrl: string;
  readonly dieAt: 'in-handler' | 'after-commit' | 'after-done';
  readonly marker: string;
  readonly visibilityTimeoutSeconds: number;
  readonly lockDurationMs: number;
  /** Also this worker's: its own stall check, when it starts, holds every other one off this long. */
  readonly stalledIntervalMs: number;
}

const task = JSON.parse(process.argv[2]!) as CrashTask;
const die = (where: string): never => {
  writeFileSync(task.marker, `${where} ${process.pid}`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

async function main(): Promise<void> {
  const connected = connect(task.target);
  const { inbox, store } = fixtureOf(connected, task.tables);
  // The crash points around the inbox's `complete`: the receipt (and the booking) committed before it.
  const complete = async (lease: DeliveryLease): Promise<boolean> => {
    if (task.dieAt === 'after-commit') die('after-commit');
    const done = await inbox.complete(lease);
    if (task.dieAt === 'after-done') die('after-done');
    return done;
  };
  // The real inbox, but for `complete`, and marking deliveries done after the receipt's commit as
  // an inbox on a connection of its own does (on the receipts' connection it would be done in
  // that transaction: no moment between the two to die at). Every other method goes straight to it.
  const fragile = new Proxy(inbox, {
    get: (target, name) => {
      if (name === 'complete') return complete;
      if (name === 'completerFor') return () => undefined;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const booking = book(connected, task.tables);
  const worker = new Worker(
    task.queue,
    bullmqProcessor({
      inbox: fragile,
      store: store as never,
      visibilityTimeoutSeconds: task.visibilityTimeoutSeconds,
      handlers: {
        stripe: async (delivery, context) => {
          const booked = await booking(delivery, context);
          if (task.dieAt === 'in-handler') die('in-handler');
          return booked;
        },
      },
    }),
    {
      connection: redisConnection(task.redisUrl),
      lockDuration: task.lockDurationMs,
      stalledInterval: task.stalledIntervalMs,
      // Started only once 'ready' has reached the parent: a job taken at once could kill this
      // process before the message left it.
      autorun: false,
    },
  );
  worker.on('error', (error) => process.send?.({ type: 'error', error: String(error) }));
  await worker.waitUntilReady();
  await new Promise<void>((resolve, reject) =>
    process.send?.({ type: 'ready' }, undefined, {}, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  void worker.run();
}

main().catch((error) => {
  process.send?.({ type: 'error', error: String(error?.stack ?? error) });
  process.exit(1);
});
