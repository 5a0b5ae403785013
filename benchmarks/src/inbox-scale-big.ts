/**
 * @module The scaling section's big backlog (inbox-scale.ts): `BENCH_SCALE_BIG` pending deliveries
 * (default 100 000) on PostgreSQL drained by 2 worker processes while the purges of finished
 * deliveries and receipts run on a timer; the rate over each tenth, what the purges left, and the
 * worker's claim of one explained before and after.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DAY, IdempotencyGuard } from '@webhook-idempotency/core';
import { SqlStore } from '@webhook-idempotency/sql';
import { type ClaimPlan, postgresClaimPlan } from './inbox.bench';
import {
  type Backlog,
  type Drain,
  drain,
  enqueue,
  type Fill,
  percent,
  problemText,
  refill,
  sizeFrom,
  type Tally,
  tally,
  thousands,
  wrongWith,
} from './inbox-scale-backlog';

const BIG = sizeFrom('BENCH_SCALE_BIG', 100_000);
const BIG_WORKERS = 2;
/** Retention of the purges during the drain: seconds standing in for the days a deployment keeps. */
const RETENTION_MS = 5_000;
const PURGE_EVERY_MS = 1_000;
/** Pending deliveries added back to the drained table before the claim is explained. */
const ADDED_BACK = 100;

/** Runs the purges of finished deliveries and of receipts on a timer until stopped. */
function purgeOnTimer(backlog: Backlog) {
  const guard = new IdempotencyGuard(new SqlStore(backlog.pool));
  const totals = { deliveries: 0, receipts: 0, runs: 0, longestMs: 0 };
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const started = Date.now();
      totals.deliveries += await backlog.inbox.purge({ olderThanMs: RETENTION_MS });
      totals.receipts += await guard.purge({ retentionDays: RETENTION_MS / DAY });
      totals.runs++;
      totals.longestMs = Math.max(totals.longestMs, Date.now() - started);
      await sleep(PURGE_EVERY_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    totals,
    /** Ends the timer; resolves once a purge under way has finished. */
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}

/** Deliveries per second over each successive tenth of `n` processed deliveries. */
function tenths(times: readonly number[], n: number): number[] {
  const at = (i: number) => (i === 0 ? 0 : times[i - 1]!);
  return Array.from({ length: 10 }, (_, k) => {
    const from = Math.round((k * n) / 10);
    const to = Math.round(((k + 1) * n) / 10);
    return (to - from) / ((at(to) - at(from)) / 1000);
  });
}

export interface BigRun {
  readonly fill: Fill;
  readonly drain: Drain;
  readonly rates: number[];
  readonly purged: { deliveries: number; receipts: number; runs: number; longestMs: number };
  /** Finished deliveries and receipts still in the tables when the backlog was empty. */
  readonly left: { deliveries: number; receipts: number };
  /** Deliveries finished within one retention, one interval and the longest purge run before the end: what a purge that keeps up may leave. */
  readonly recent: number;
  /** The claim of one on the fresh backlog, before the drain. */
  readonly planBefore: ClaimPlan;
  /** The claim of one at the end, with {@link ADDED_BACK} pending deliveries added back. */
  readonly plan: ClaimPlan;
  readonly wrong?: string;
}

export async function big(backlog: Backlog): Promise<BigRun> {
  const fill = await refill(backlog, BIG);
  const planBefore = await postgresClaimPlan(backlog.pool);
  const purge = purgeOnTimer(backlog);
  let result: Drain;
  let counts: Tally;
  try {
    result = await drain(backlog, BIG_WORKERS, BIG);
    // What the purges left when the backlog was empty, read while they still run.
    counts = await tally(backlog);
  } finally {
    await purge.stop();
  }
  const end = result.times[BIG - 1]!;
  const window = RETENTION_MS + PURGE_EVERY_MS + purge.totals.longestMs;
  const wrong = wrongWith(BIG, counts, result.problems, true);
  await enqueue(backlog, ADDED_BACK, 'evt_back');
  return {
    fill,
    drain: result,
    rates: tenths(result.times, BIG),
    purged: purge.totals,
    left: { deliveries: counts.done + counts.dead, receipts: counts.receipts },
    recent: result.times.filter((t) => t > end - window).length,
    planBefore,
    plan: await postgresClaimPlan(backlog.pool),
    ...(wrong && { wrong }),
  };
}

export function bigReport(run: BigRun, log: (line?: string) => void): void {
  const { rates, plan, purged, left } = run;
  const rate = BIG / run.drain.seconds;
  log(
    `## A backlog of ${thousands(BIG)} pending deliveries on PostgreSQL 15 (durable), drained by ${BIG_WORKERS} worker processes`,
  );
  log();
  log(`| tenth of the backlog | ${rates.map((_, i) => i + 1).join(' | ')} | last ÷ first |`);
  log(`|---|${rates.map(() => '---|').join('')}---|`);
  log(
    `| deliveries/s | ${rates.map((r) => r.toFixed(0)).join(' | ')} | ${(rates[9]! / rates[0]!).toFixed(2)}× |`,
  );
  log();
  const keptUp = Math.max(left.deliveries, left.receipts) <= run.recent;
  const extra = problemText(run.drain.problems);
  log(
    `Stored at ${run.fill.rate.toFixed(0)} deliveries/s (${run.fill.perCommit.toFixed(1)} per commit) and drained in ${run.drain.seconds.toFixed(0)} s (${rate.toFixed(0)}/s overall; database CPU ${(run.drain.databaseCpuUs / BIG).toFixed(0)} µs and Node CPU ${(run.drain.nodeCpuUs / BIG).toFixed(0)} µs per delivery, purges included; the machine's cores ${percent(run.drain.machineBusy)} busy), the last tenth at ${(rates[9]! / rates[0]!).toFixed(2)}× the rate of the first, ${run.wrong ? `**not every delivery booked once: ${run.wrong}**` : 'every delivery booked once'}${extra ? ` (${extra})` : ''}; EXPLAIN ANALYZE of the worker's claim of one read ${planText(run.planBefore)} on the fresh backlog and, at the end, with ${ADDED_BACK} pending deliveries added back to the ${thousands(plan.done)} finished ones still in the table, ${planText(plan)}${plan.rowsRead <= 2 ? ': 1 row per claimed delivery' : ': **more than 1 row per claimed delivery**'}; the purges (\`SqlInbox.purge\` and \`IdempotencyGuard.purge\` every ${PURGE_EVERY_MS / 1000} s, a retention of ${RETENTION_MS / 1000} s standing in for days: ${purged.runs} runs, the longest ${purged.longestMs} ms) deleted ${thousands(purged.deliveries)} deliveries and ${thousands(purged.receipts)} receipts while the workers drained and left ${thousands(left.deliveries)} finished deliveries and ${thousands(left.receipts)} receipts when the backlog was empty, ${keptUp ? 'no more than the' : '**more than the**'} ${thousands(run.recent)} finished within the last retention, interval and longest run: ${keptUp ? 'they kept up' : '**they fell behind**'}.`,
  );
}

/** A claim plan in words: rows read, the scan, buffers. */
const planText = (plan: ClaimPlan) =>
  `${thousands(plan.rowsRead)} row${plan.rowsRead === 1 ? '' : 's'} (${plan.scan}${plan.sorted ? ', then sorted by id' : ''}, ${plan.buffers ?? '–'} buffers)`;
