/**
 * @module One worker process of the scaling section (inbox-scale.ts): `createInboxWorker` with the
 * bench's booking handler over a PostgreSQL backlog, receipts in `SqlStore` on the same pool of 10,
 * concurrency and batch size at their defaults. `node inbox-scale-worker.js <postgres url>`.
 *
 * Over IPC: sends `{ ready: true }` once the pool's connections are open; on `start` starts the
 * worker and sends `{ progress }` (deliveries processed so far) every 100 ms; on `stop` stops it
 * and answers `{ report }` ({@link ScaleWorkerReport}), then exits.
 */
import { createInboxWorker, type InboxEvent } from '@webhook-idempotency/core/inbox';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import type pg from 'pg';
import { bookingHandler, openBenchDatabase } from './booking';

/** A worker process's account of its drain; times on the machine's monotonic clock, in ms. */
export interface ScaleWorkerReport {
  readonly processed: number;
  /** When `start` was received. */
  readonly startedAt: number;
  /** When each delivery was reported processed (committed), in order. */
  readonly times: readonly number[];
  /** The process's CPU time from `start` to `stop`, µs. */
  readonly cpuUs: number;
  /** Events other than `processed`, by type (`retry`, `dead`, `store-error`, …). */
  readonly problems: Readonly<Record<string, number>>;
}

/** Milliseconds on the monotonic clock every process of the machine shares. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const POOL_SIZE = 10;
const PROGRESS_EVERY_MS = 100;

async function main(): Promise<void> {
  const { db, book, close } = openBenchDatabase(process.argv[2]!);
  // Connected before the clock starts: the drain measures claims, not connection setup.
  const clients = await Promise.all(
    Array.from({ length: POOL_SIZE }, () => (db as pg.Pool).connect()),
  );
  for (const client of clients) client.release();
  const times: number[] = [];
  const problems: Record<string, number> = {};
  const worker = createInboxWorker({
    inbox: new SqlInbox(db),
    store: new SqlStore(db),
    handlers: { bench: bookingHandler(book) },
    onEvent: (event: InboxEvent) => {
      if (event.type === 'processed') times.push(monotonicMs());
      else problems[event.type] = (problems[event.type] ?? 0) + 1;
    },
  });
  let startedAt = 0;
  let cpu = process.cpuUsage();
  let progress: NodeJS.Timeout | undefined;
  process.on('message', (message: string) => {
    if (message === 'start') {
      cpu = process.cpuUsage();
      startedAt = monotonicMs();
      worker.start();
      progress = setInterval(() => process.send!({ progress: times.length }), PROGRESS_EVERY_MS);
    }
    if (message === 'stop') {
      clearInterval(progress);
      const used = process.cpuUsage(cpu);
      const report: ScaleWorkerReport = {
        processed: times.length,
        startedAt,
        times,
        cpuUs: used.user + used.system,
        problems,
      };
      void worker
        .stop()
        .then(() => close())
        .then(() => process.send!({ report }, () => process.exit(0)));
    }
  });
  process.send!({ ready: true });
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
