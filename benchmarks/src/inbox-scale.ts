/**
 * @module How inbox mode holds up at scale, on a durable PostgreSQL 15 (`fsync`,
 * `synchronous_commit` on) free to use both cores:
 * - here, the drain rate of a backlog by 1, 2 and 4 worker processes (inbox-scale-worker.ts,
 *   bundled), each point on the same fresh backlog stored through `SqlInbox.enqueue` with group
 *   commit (the backlog and the drains: inbox-scale-backlog.ts);
 * - a big backlog drained by 2 worker processes, tenth by tenth, with the purges running on a
 *   timer, and the claim's plan before and after (inbox-scale-big.ts);
 * - the kill -9 durability line of the group-commit endpoint at a bigger size than the test's, on
 *   PostgreSQL, MariaDB and a SQLite file (inbox-scale-kill.ts).
 *
 * Sizes: `BENCH_SCALE_BACKLOG` (default 20 000), `BENCH_SCALE_BIG` (default 100 000),
 * `BENCH_SCALE_KILL_S` (seconds of load before the kill, default 5); `BENCH_SCALE_ONLY=curve,big,kill`
 * narrows a run.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, median, range } from './http.bench';
import {
  type Backlog,
  CORES,
  type Drain,
  drain,
  type Fill,
  percent,
  problemText,
  refill,
  shareOf,
  sizeFrom,
  startBacklogDatabase,
  tally,
  thousands,
  wrongWith,
} from './inbox-scale-backlog';
import { big, bigReport } from './inbox-scale-big';
import { killReport, killRuns } from './inbox-scale-kill';

const BACKLOG = sizeFrom('BENCH_SCALE_BACKLOG', 20_000);
const WORKER_COUNTS = [1, 2, 4];

interface CurvePoint {
  readonly workers: number;
  readonly fill: Fill;
  readonly drain: Drain;
  readonly wrong?: string;
}

async function curve(backlog: Backlog): Promise<CurvePoint[]> {
  const points: CurvePoint[] = [];
  for (const workers of WORKER_COUNTS) {
    const fill = await refill(backlog, BACKLOG);
    const result = await drain(backlog, workers, BACKLOG);
    const wrong = wrongWith(BACKLOG, await tally(backlog), result.problems, false);
    points.push({ workers, fill, drain: result, ...(wrong && { wrong }) });
  }
  return points;
}

function curveReport(points: readonly CurvePoint[], log: (line?: string) => void): void {
  const rate = (p: CurvePoint) => BACKLOG / p.drain.seconds;
  const base = rate(points[0]!);
  const fills = points.map((p) => p.fill.rate);
  log(
    `## Inbox workers on PostgreSQL 15 (durable): drain rate by worker processes (${thousands(BACKLOG)} pending deliveries per point)`,
  );
  log();
  log(
    `Each point starts from the same fresh backlog (tables truncated, ${thousands(BACKLOG)} deliveries stored through \`SqlInbox.enqueue\` with ${CONNECTIONS} calls in flight, then CHECKPOINT): stored at ${median(fills).toFixed(0)} deliveries/s (${range(fills)}), ${median(points.map((p) => p.fill.perCommit)).toFixed(1)} deliveries per committed transaction (group commit, the default \`groupCommit.groupSize\` 64). Each worker process runs \`createInboxWorker\` with the booking handler (an INSERT into the business table in the receipt's transaction, \`SqlStore\` receipts), concurrency and group size at their defaults, a pg pool of 10; the rate runs from the first worker's start to the last delivery committed; CPU from /proc (PostgreSQL's postmaster and backends) and \`process.cpuUsage()\` (the workers), over ${CORES} cores shared by all of them.`,
  );
  log();
  log(
    '| worker processes | deliveries/s | ÷ 1 worker | database CPU µs/delivery | Node CPU µs/delivery (all workers) | cores busy: database + workers (the whole machine) | every delivery booked once |',
  );
  log('|---|---|---|---|---|---|---|');
  for (const p of points) {
    const extra = problemText(p.drain.problems);
    log(
      `| ${p.workers} | ${rate(p).toFixed(0)} | ${(rate(p) / base).toFixed(2)}× | ${(p.drain.databaseCpuUs / BACKLOG).toFixed(0)} | ${(p.drain.nodeCpuUs / BACKLOG).toFixed(0)} | ${percent(shareOf(p.drain.databaseCpuUs, p.drain.seconds))} + ${percent(shareOf(p.drain.nodeCpuUs, p.drain.seconds))} (${percent(p.drain.machineBusy)}) | ${p.wrong ? `**no: ${p.wrong}**` : 'yes'}${extra ? ` (${extra})` : ''} |`,
    );
  }
  log();
  // Where the rate stops rising: the first point that adds less than a tenth over the one before.
  const flat = points.findIndex((p, i) => i > 0 && rate(p) < rate(points[i - 1]!) * 1.1);
  const at = points[flat === -1 ? points.length - 1 : flat]!;
  const database = shareOf(at.drain.databaseCpuUs, at.drain.seconds);
  const node = shareOf(at.drain.nodeCpuUs, at.drain.seconds);
  const ceiling = (CORES * 1e6) / ((at.drain.databaseCpuUs + at.drain.nodeCpuUs) / BACKLOG);
  const ratios = points.map((p) => `${(rate(p) / base).toFixed(2)}×`).join(' / ');
  const counts = points.map((p) => p.workers).join(' / ');
  const where =
    flat === -1
      ? `it still rises at ${at.workers}`
      : `it stops rising after ${points[flat - 1]!.workers}`;
  const others = Math.max(0, at.drain.machineBusy - database - node);
  const busy = `with ${at.workers}, the ${CORES} cores are ${percent(at.drain.machineBusy)} busy (${percent(database)} PostgreSQL, ${percent(node)} the workers${others >= 0.05 ? `, ${percent(others)} other processes: this runner and whatever else shares the machine` : ''})`;
  const perDelivery = (at.drain.databaseCpuUs + at.drain.nodeCpuUs) / BACKLOG;
  const why =
    at.drain.machineBusy < 0.85
      ? `${busy}: it is not CPU-bound (what the processes wait on, round trips or commits, is not measured here)`
      : others >= 0.15
        ? `${busy}: CPU-bound, partly by other processes`
        : `${busy}, so more processes only split the same CPU: at ${perDelivery.toFixed(0)} µs of CPU per delivery (database and workers, ${database > node ? 'the database the larger part' : 'the workers the larger part'}), ${CORES} cores allow at most ${ceiling.toFixed(0)} deliveries/s`;
  log(
    `The drain rate is ${ratios} of one worker's at ${counts} worker processes: ${where} worker process${flat === 1 ? '' : 'es'}; ${why}.`,
  );
}

/** Runs the section and prints it through `log`; servers started and removed here. */
export async function runInboxScaleBench(log: (line?: string) => void): Promise<void> {
  const only = process.env.BENCH_SCALE_ONLY?.split(',');
  const runs = (part: 'curve' | 'big' | 'kill') => !only || only.includes(part);
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-scale-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  try {
    if (runs('curve') || runs('big')) {
      const backlog = await startBacklogDatabase(dir);
      try {
        if (runs('curve')) {
          curveReport(await curve(backlog), log);
          log();
        }
        if (runs('big')) {
          bigReport(await big(backlog), log);
          log();
        }
      } finally {
        await backlog.pool.end();
        await backlog.server.destroy();
      }
    }
    if (runs('kill')) killReport(await killRuns(dir), log);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  runInboxScaleBench(console.log).catch((error) => {
    console.error(error);
    process.exit(1);
  });
