/**
 * @module How inbox mode holds up at scale, on a durable PostgreSQL 15 (`fsync`,
 * `synchronous_commit` on) free to use both cores:
 * - the drain rate of a backlog by 1, 2 and 4 worker processes (inbox-scale-worker.ts, bundled),
 *   each point on the same fresh backlog stored through `SqlInbox.enqueue` with group commit;
 * - a big backlog drained by 2 worker processes, tenth by tenth, with the purges of finished
 *   deliveries and receipts running on a timer, and the claim's plan at the end;
 * - the kill -9 durability run of the group-commit endpoint (packages/reliability/src/ack-kill.ts)
 *   at a bigger size than the test's, on PostgreSQL, MariaDB and a SQLite file.
 *
 * Sizes: `BENCH_SCALE_BACKLOG` (default 20 000), `BENCH_SCALE_BIG` (default 100 000),
 * `BENCH_SCALE_KILL_S` (seconds of load before the kill, default 5); `BENCH_SCALE_ONLY=curve,big,kill`
 * narrows a run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DAY, IdempotencyGuard } from '@webhook-idempotency/core';
import {
  DEFAULT_INBOX_TABLE,
  DEFAULT_TABLE,
  InboxSchema,
  Schema,
  SqlInbox,
  SqlStore,
} from '@webhook-idempotency/sql';
import pg from 'pg';
import {
  ACK_TABLE,
  ACK_TOKEN,
  ackTargets,
  afterCrash,
  type LoadOutcome,
  saturateAndKill,
  startAckEndpoint,
} from '../../packages/reliability/src/ack-kill';
import {
  type KillableDatabase,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { bundle, EVERY_CORE, unpinned } from './bundle';
import { ask, CONNECTIONS, median, range } from './http.bench';
import {
  type ClaimPlan,
  childrenOf,
  postgresClaimPlan,
  postgresCpuUs,
  postmasterOf,
  toCores,
} from './inbox.bench';
import { EFFECTS_TABLE } from './inbox-paths';
import type { ScaleWorkerReport } from './inbox-scale-worker';

/** A positive whole number from the environment, or `fallback`. */
function sizeFrom(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive whole number, got ${value}`);
  return n;
}

const BACKLOG = sizeFrom('BENCH_SCALE_BACKLOG', 20_000);
const BIG = sizeFrom('BENCH_SCALE_BIG', 100_000);
const KILL_AFTER_S = sizeFrom('BENCH_SCALE_KILL_S', 5);
const WORKER_COUNTS = [1, 2, 4];
const BIG_WORKERS = 2;
/** Retention of the purges during the big drain: seconds standing in for the days a deployment keeps. */
const RETENTION_MS = 5_000;
const PURGE_EVERY_MS = 1_000;
/** Pending deliveries added back to the drained table before the claim is explained. */
const ADDED_BACK = 100;
const CORES = cpus().length;
/** The body the HTTP sections send. */
const BODY = Buffer.from('{"type":"payment.succeeded","data":{"amount":500000}}');

/** The PostgreSQL server, its tables, and the inbox (group commit on) that stores the backlogs. */
interface Backlog {
  readonly server: KillableDatabase;
  readonly postmaster: number;
  /** Pool of 10 for filling, purging and counting. */
  readonly pool: pg.Pool;
  readonly inbox: SqlInbox;
  /** Transactions group commit has committed so far. */
  readonly commits: { count: number };
}

async function startBacklogDatabase(dir: string): Promise<Backlog> {
  const server = await startDurablePostgres(join(dir, 'pg'));
  const postmaster = postmasterOf(server);
  // The runner may be pinned to one core: the database and the workers get both.
  toCores([postmaster, ...childrenOf(postmaster)], EVERY_CORE);
  const pool = new pg.Pool({ connectionString: server.url, max: 10 });
  await InboxSchema.createTable(pool);
  await Schema.createTable(pool);
  await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event TEXT PRIMARY KEY)`);
  const commits = { count: 0 };
  const inbox = new SqlInbox(pool, { groupCommit: { onCommit: () => commits.count++ } });
  return { server, postmaster, pool, inbox, commits };
}

/** How a backlog was stored: seconds, and deliveries per committed transaction. */
interface Fill {
  readonly rate: number;
  readonly perCommit: number;
}

/** Stores `n` new deliveries through `SqlInbox.enqueue`, {@link CONNECTIONS} calls in flight. */
async function enqueue(backlog: Backlog, n: number, prefix: string): Promise<Fill> {
  const commitsBefore = backlog.commits.count;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(CONNECTIONS, n) }, async () => {
      while (next < n) {
        const externalId = `${prefix}_${next++}`;
        const stored = await backlog.inbox.enqueue({
          provider: 'bench',
          externalId,
          orderingKey: null,
          headers: {},
          body: BODY,
        });
        if (!stored) throw new Error(`delivery ${externalId} was already stored`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rate: n / seconds, perCommit: n / Math.max(1, backlog.commits.count - commitsBefore) };
}

/** Empties every table, stores a backlog of `n`, and checkpoints, so each drain starts alike. */
async function refill(backlog: Backlog, n: number): Promise<Fill> {
  await backlog.pool.query(
    `TRUNCATE ${DEFAULT_INBOX_TABLE}, ${DEFAULT_TABLE}, ${EFFECTS_TABLE} RESTART IDENTITY`,
  );
  const fill = await enqueue(backlog, n, 'evt');
  await backlog.pool.query('CHECKPOINT');
  return fill;
}

/** The machine's CPU time so far, busy and in all (jiffies of every core, from /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = fields.slice(0, 8).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  // idle and iowait are the not-busy ones.
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

/** One drain by worker processes. */
interface Drain {
  readonly seconds: number;
  /** Each processed delivery's time, ms after the first worker started, sorted. */
  readonly times: readonly number[];
  readonly databaseCpuUs: number;
  readonly nodeCpuUs: number;
  /** The share of the machine's cores busy over the drain, whoever kept them busy. */
  readonly machineBusy: number;
  /** Worker events other than `processed`, by type, over every worker. */
  readonly problems: Readonly<Record<string, number>>;
}

/** Starts `workers` processes on the backlog of `n` and waits until they processed all of it. */
async function drain(backlog: Backlog, workers: number, n: number): Promise<Drain> {
  const children: ChildProcess[] = Array.from({ length: workers }, () => {
    const [command, args] = unpinned([bundle('inbox-scale-worker'), backlog.server.url]);
    return spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  });
  try {
    await Promise.all(children.map((child) => ask(child, '', 'ready')));
    const progress = children.map(() => 0);
    const emptied = new Promise<void>((resolve, reject) => {
      // A bound against a hang only: 50 deliveries per second at the least.
      const bound = setTimeout(
        () => reject(new Error(`drain of ${n} by ${workers} workers did not finish`)),
        60_000 + n * 20,
      );
      bound.unref();
      children.forEach((child, i) => {
        child.on('message', (message: { progress?: number }) => {
          if (message.progress === undefined) return;
          progress[i] = message.progress;
          if (progress.reduce((sum, p) => sum + p, 0) < n) return;
          clearTimeout(bound);
          resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
      });
    });
    const databaseBefore = postgresCpuUs(backlog.postmaster);
    const machineBefore = machineTicks();
    for (const child of children) child.send('start');
    await emptied;
    const databaseCpuUs = postgresCpuUs(backlog.postmaster) - databaseBefore;
    const machineAfter = machineTicks();
    const reports = await Promise.all(
      children.map((child) => ask<ScaleWorkerReport>(child, 'stop', 'report')),
    );
    const start = Math.min(...reports.map((r) => r.startedAt));
    const times = reports
      .flatMap((r) => r.times)
      .map((t) => t - start)
      .sort((a, b) => a - b);
    const problems: Record<string, number> = {};
    for (const report of reports)
      for (const [type, count] of Object.entries(report.problems))
        problems[type] = (problems[type] ?? 0) + count;
    return {
      seconds: times[n - 1]! / 1000,
      times,
      databaseCpuUs,
      nodeCpuUs: reports.reduce((sum, r) => sum + r.cpuUs, 0),
      machineBusy:
        (machineAfter.busy - machineBefore.busy) /
        Math.max(1, machineAfter.total - machineBefore.total),
      problems,
    };
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** What the tables hold after a drain. */
interface Tally {
  /** Rows of the business table (its primary key allows one per event). */
  readonly booked: number;
  readonly done: number;
  readonly dead: number;
  readonly unfinished: number;
  readonly receipts: number;
}

async function tally(backlog: Backlog): Promise<Tally> {
  const { rows } = await backlog.pool.query<Record<keyof Tally, string>>(
    `SELECT (SELECT count(*) FROM ${EFFECTS_TABLE}) AS booked,
            (SELECT count(*) FROM ${DEFAULT_INBOX_TABLE} WHERE status = 'done') AS done,
            (SELECT count(*) FROM ${DEFAULT_INBOX_TABLE} WHERE status = 'dead') AS dead,
            (SELECT count(*) FROM ${DEFAULT_INBOX_TABLE} WHERE finished_at IS NULL) AS unfinished,
            (SELECT count(*) FROM ${DEFAULT_TABLE}) AS receipts`,
  );
  const row = rows[0]!;
  return {
    booked: Number(row.booked),
    done: Number(row.done),
    dead: Number(row.dead),
    unfinished: Number(row.unfinished),
    receipts: Number(row.receipts),
  };
}

/** Describes what is wrong with a drain of `n`, or `undefined` when every delivery was booked once. */
function wrongWith(
  n: number,
  t: Tally,
  problems: Drain['problems'],
  purged: boolean,
): string | undefined {
  const wrong = [
    t.booked !== n && `${t.booked} booked of ${n}`,
    !purged && t.done !== n && `${t.done} done of ${n}`,
    (t.dead > 0 || (problems.dead ?? 0) > 0) && `${Math.max(t.dead, problems.dead ?? 0)} dead`,
    t.unfinished > 0 && `${t.unfinished} unfinished`,
  ].filter(Boolean);
  return wrong.length ? wrong.join(', ') : undefined;
}

const problemText = (problems: Drain['problems']) =>
  Object.entries(problems)
    .map(([type, count]) => `${count} ${type}`)
    .join(', ');

/** The share of the machine's cores that `cpuUs` kept busy over `seconds`. */
const shareOf = (cpuUs: number, seconds: number) => cpuUs / (seconds * 1e6 * CORES);
const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
const thousands = (n: number) => n.toLocaleString('en');

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
    `Each point starts from the same fresh backlog (tables truncated, ${thousands(BACKLOG)} deliveries stored through \`SqlInbox.enqueue\` with ${CONNECTIONS} calls in flight, then CHECKPOINT): stored at ${median(fills).toFixed(0)} deliveries/s (${range(fills)}), ${median(points.map((p) => p.fill.perCommit)).toFixed(1)} deliveries per committed transaction (group commit, the default \`maxBatch\` 64). Each worker process runs \`createInboxWorker\` with the booking handler (an INSERT into the business table in the receipt's transaction, \`SqlStore\` receipts), concurrency and batch size at their defaults, a pg pool of 10; the rate runs from the first worker's start to the last delivery committed; CPU from /proc (PostgreSQL's postmaster and backends) and \`process.cpuUsage()\` (the workers), over ${CORES} cores shared by all of them.`,
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

interface BigRun {
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

async function big(backlog: Backlog): Promise<BigRun> {
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

function bigReport(run: BigRun, log: (line?: string) => void): void {
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

interface KillRow {
  readonly name: string;
  readonly load: LoadOutcome;
  readonly stored: number;
  readonly present: number;
  readonly lost: number;
  readonly largestBatch: number;
}

/** The group-commit endpoint SIGKILLed under load on each database, then the database crashed too. */
async function killRuns(dir: string): Promise<KillRow[]> {
  const rows: KillRow[] = [];
  for (const target of ackTargets) {
    const where = join(dir, `kill-${target.dialect}`);
    mkdirSync(where, { recursive: true });
    const database = await target.start(where);
    try {
      await target.create(database.url);
      const endpoint = await startAckEndpoint({
        dialect: target.dialect,
        url: database.url,
        table: ACK_TABLE,
        token: ACK_TOKEN,
      });
      const load = await saturateAndKill(endpoint, {
        clients: CONNECTIONS,
        killWhen: ({ elapsedMs }) =>
          elapsedMs >= KILL_AFTER_S * 1000 && endpoint.largestBatch() > 1,
        boundMs: KILL_AFTER_S * 1000 + 60_000,
      });
      const after = await afterCrash(target, database, load.acknowledged);
      rows.push({
        name: target.name,
        load,
        stored: after.stored,
        present: after.present,
        lost: after.lost.length,
        largestBatch: endpoint.largestBatch(),
      });
    } finally {
      await database.server?.destroy();
      rmSync(where, { recursive: true, force: true });
    }
  }
  return rows;
}

function killReport(rows: readonly KillRow[], log: (line?: string) => void): void {
  log(
    `## Group commit under kill -9: the inbox endpoint SIGKILLed mid-run (${CONNECTIONS} concurrent clients, ${KILL_AFTER_S} s), then its database server`,
  );
  log();
  log(
    '| database | deliveries acknowledged | present after kill -9 | lost | largest batch committed | requests cut by the kill |',
  );
  log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const refused = row.load.refused.length;
    log(
      `| ${row.name} | ${thousands(row.load.acknowledged.length)} | ${thousands(row.present)} | ${row.lost === 0 ? '0' : `**${thousands(row.lost)}**`} | ${row.largestBatch} | ${row.load.failedConnections}${refused ? ` (**${refused} refused**)` : ''} |`,
    );
  }
  log();
  const lost = rows.reduce((sum, r) => sum + r.lost, 0);
  log(
    `The endpoint is packages/reliability/src/ack-server.ts (Express \`inbox()\` over \`SqlInbox\` with group commit) in its own process, killed with SIGKILL while saturated; the PostgreSQL and MariaDB servers are then SIGKILLed as well and started again (crash recovery) before the table is read (SQLite: the file as the kill left it, \`synchronous = FULL\`). ${lost === 0 ? 'No acknowledged delivery was lost on any database' : `**${thousands(lost)} acknowledged deliveries were lost**`}; the table also holds deliveries stored but not yet answered when the kill landed (${rows.map((r) => `${thousands(r.stored - r.present)} on ${r.name.split(' ')[0]}`).join(', ')}).`,
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
