/**
 * @module The scaling section's PostgreSQL backlog (inbox-scale.ts): a durable PostgreSQL 15 free
 * to use every core, backlogs stored through `SqlInbox.enqueue` with group commit, drains by worker
 * processes (inbox-scale-worker.ts, bundled) timed from their own clocks, and what the tables hold
 * afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_INBOX_TABLE,
  DEFAULT_TABLE,
  InboxSchema,
  Schema,
  SqlInbox,
} from '@webhook-idempotency/sql';
import pg from 'pg';
import {
  type KillableDatabase,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { bundle, EVERY_CORE, unpinned } from './bundle';
import { ask, CONNECTIONS } from './http.bench';
import { childrenOf, postgresCpuUs, postmasterOf, toCores } from './inbox.bench';
import { EFFECTS_TABLE } from './inbox-paths';
import type { ScaleWorkerReport } from './inbox-scale-worker';

/** A positive whole number from the environment, or `fallback`. */
export function sizeFrom(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive whole number, got ${value}`);
  return n;
}

export const CORES = cpus().length;
/** The body the HTTP sections send. */
const BODY = Buffer.from('{"type":"payment.succeeded","data":{"amount":500000}}');

/** The PostgreSQL server, its tables, and the inbox (group commit on) that stores the backlogs. */
export interface Backlog {
  readonly server: KillableDatabase;
  readonly postmaster: number;
  /** Pool of 10 for filling, purging and counting. */
  readonly pool: pg.Pool;
  readonly inbox: SqlInbox;
  /** Transactions group commit has committed so far. */
  readonly commits: { count: number };
}

export async function startBacklogDatabase(dir: string): Promise<Backlog> {
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
export interface Fill {
  readonly rate: number;
  readonly perCommit: number;
}

/** Stores `n` new deliveries through `SqlInbox.enqueue`, {@link CONNECTIONS} calls in flight. */
export async function enqueue(backlog: Backlog, n: number, prefix: string): Promise<Fill> {
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
export async function refill(backlog: Backlog, n: number): Promise<Fill> {
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
export interface Drain {
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
export async function drain(backlog: Backlog, workers: number, n: number): Promise<Drain> {
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
export interface Tally {
  /** Rows of the business table (its primary key allows one per event). */
  readonly booked: number;
  readonly done: number;
  readonly dead: number;
  readonly unfinished: number;
  readonly receipts: number;
}

export async function tally(backlog: Backlog): Promise<Tally> {
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
export function wrongWith(
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

export const problemText = (problems: Drain['problems']) =>
  Object.entries(problems)
    .map(([type, count]) => `${count} ${type}`)
    .join(', ');

/** The share of the machine's cores that `cpuUs` kept busy over `seconds`. */
export const shareOf = (cpuUs: number, seconds: number) => cpuUs / (seconds * 1e6 * CORES);
export const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
export const thousands = (n: number) => n.toLocaleString('en');
