/**
 * @module Inbox mode (issue 12, DESIGN.md §13): how fast the inbox endpoint acknowledges
 * deliveries against the synchronous guard on the same database, over HTTP with the HTTP
 * section's rules (bundled Express server pinned to core 0, autocannon on core 1, interleaved
 * rounds, median and min–max, the server's CPU per request, p99), and how fast
 * `createInboxWorker` drains what the endpoint stored.
 *
 * Paths, each on a SQLite file (WAL, `synchronous=NORMAL`, in the server's process), on a
 * durable PostgreSQL 15 (`fsync=on`, `synchronous_commit=on`) and on a durable MariaDB 10.11
 * (`innodb_flush_log_at_trx_commit=1`), both servers moved to the Node server's core:
 * - the inbox endpoint: store the delivery (one INSERT), answer 200;
 * - the guard, `transactional: true`: claim, one booking INSERT in the receipt's transaction,
 *   the receipt completed in it, then the answer (what the provider waits for);
 * - the same guard whose handler first awaits 50 ms (a slow downstream) inside that transaction;
 * - the worker draining the endpoint's deliveries with the same booking handler.
 *
 * Every measurement starts on empty tables: a new SQLite file, or PostgreSQL's tables truncated
 * and checkpointed, MariaDB's truncated. No signature: `provider: 'bench'`, the key from
 * `x-event-id`. `BENCH_INBOX_ONLY=sqlite,postgres` (any of `sqlite`, `postgres`, `mariadb`)
 * narrows a run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INBOX_TABLE, DEFAULT_TABLE, InboxSchema, Schema } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  type KillableDatabase,
  startDurableMariadb,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { dialects } from '../../packages/sql/src/dialects';
import { inboxDialects } from '../../packages/sql/src/inbox-dialects';
import { buildInboxQueries } from '../../packages/sql/src/inbox-queries';
import { bundle, pinned } from './bundle';
import {
  ask,
  CONNECTIONS,
  DURATION_S,
  loadServer,
  median,
  range,
  ROUNDS,
  type Sample,
} from './http.bench';
import {
  type DrainReport,
  EFFECTS_TABLE,
  type InboxServerMode,
  SLOW_HANDLER_MS,
} from './inbox-paths';

const MODES: readonly InboxServerMode[] = ['inbox', 'guard', 'guard-slow'];
const LABELS: Record<InboxServerMode, string> = {
  inbox: 'inbox endpoint: store, answer 200',
  guard: 'guard (transactional): claim, booking INSERT, receipt, answer',
  'guard-slow': `guard, the same handler after ${SLOW_HANDLER_MS} ms awaited in the transaction`,
};
/** The longest a drain runs, past which its rate is taken over what it processed. */
const DRAIN_MAX_S = DURATION_S * 3;

/** A database both paths run on, prepared empty before each measurement. */
interface Target {
  readonly name: string;
  /** The server's `<database>` argument for a fresh, empty measurement. */
  prepare(): Promise<string>;
  /** The database's own CPU µs so far, when it runs outside the server's process. */
  cpuUs?: () => number;
  /** How the worker's claim reads the table as the last drain left it, where the plan says. */
  claimPlan?: () => Promise<ClaimPlan>;
  close(): Promise<void>;
}

/** The claim's scan of the deliveries table (EXPLAIN ANALYZE of a claim of one), next to what the table holds. */
export interface ClaimPlan {
  /** The scan's node type (`Index Scan`, `Bitmap Heap Scan`, …). */
  readonly scan: string;
  /** True when the rows it read were sorted afterwards (the id order of the claim). */
  readonly sorted: boolean;
  /** Rows of the table the scan read: returned plus removed by its filter or recheck. */
  readonly rowsRead: number;
  /** Shared buffers the whole statement touched (hit or read), where the database reports them. */
  readonly buffers?: number;
  readonly done: number;
  readonly unfinished: number;
}

async function sqliteTarget(dir: string): Promise<Target> {
  let n = 0;
  let file: string | undefined;
  const remove = () => {
    if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  };
  return {
    name: 'SQLite file (WAL, synchronous=NORMAL)',
    async prepare() {
      remove();
      file = join(dir, `inbox-${++n}.sqlite`);
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      await InboxSchema.createTable(db);
      await Schema.createTable(db);
      db.exec(`CREATE TABLE ${EFFECTS_TABLE} (event TEXT PRIMARY KEY)`);
      db.close();
      return `sqlite:${file}`;
    },
    async close() {
      remove();
    },
  };
}

/** Pids whose parent is `parent`. */
export function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // ended while we looked
      }
    })
    .map(Number);
}

const CLOCK_TICK_US = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** utime + stime + cutime + cstime of `pid` (its reaped children included), in µs. */
export function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the comm: state is field 3, utime..cstime are fields 14–17.
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * CLOCK_TICK_US;
  } catch {
    return 0; // a backend that ended: its time is in the postmaster's cutime now
  }
}

/** The worker's own claim statement (one provider, a claim of one), for the dialect's placeholders. */
function claimStatement(dialect: 'postgres' | 'mysql'): string {
  const sql = buildInboxQueries(
    dialects[dialect],
    inboxDialects[dialect],
    DEFAULT_INBOX_TABLE,
    true,
  ).claimSelect(1);
  let n = 0;
  return dialect === 'postgres' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
}

/** Finished and unfinished deliveries in the table. */
async function statusCounts(
  query: (sql: string) => Promise<unknown[]>,
): Promise<{ done: number; unfinished: number }> {
  const [row] = (await query(
    `SELECT SUM(CASE WHEN status IN ('done', 'dead') THEN 1 ELSE 0 END) AS done, SUM(CASE WHEN status IN ('pending', 'processing') THEN 1 ELSE 0 END) AS unfinished FROM ${DEFAULT_INBOX_TABLE}`,
  )) as Array<{ done: unknown; unfinished: unknown }>;
  return { done: Number(row?.done ?? 0), unfinished: Number(row?.unfinished ?? 0) };
}

/**
 * Moves processes (every thread of each) to `cores`, a taskset list (`'0'`, `'0,1'`); the
 * processes and threads they start later inherit it. Here a database server goes to the server's
 * core 0: it and the Node server share it, as SQLite does in-process, and the load generator
 * keeps core 1.
 */
export function toCores(pids: readonly number[], cores: string): void {
  if (!existsSync('/usr/bin/taskset')) return;
  for (const pid of pids)
    execFileSync('/usr/bin/taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

/** The pid of a PostgreSQL server's postmaster, from its data folder. */
export function postmasterOf(server: KillableDatabase): number {
  return Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** A PostgreSQL server's CPU µs so far: the postmaster and its children (backends, and the ones reaped). */
export function postgresCpuUs(postmaster: number): number {
  return cpuOf(postmaster) + childrenOf(postmaster).reduce((sum, pid) => sum + cpuOf(pid), 0);
}

/** The claim's time bound as `SqlInbox` sets it by default (`claimTimeoutMs`). */
const CLAIM_TIMEOUT_MS = 5000;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the worker's claim of one delivery on PostgreSQL, in a transaction
 * prepared as the worker's claim prepares its own (the same settings first), then rolled back: it
 * leases nothing. With what the table holds.
 */
export async function postgresClaimPlan(pool: pg.Pool): Promise<ClaimPlan> {
  const { setup } = inboxDialects.postgres.boundClaim('', CLAIM_TIMEOUT_MS);
  const client = await pool.connect();
  let rows: Array<{ 'QUERY PLAN': unknown }>;
  try {
    await client.query('BEGIN');
    if (setup) await client.query(setup);
    ({ rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claimStatement('postgres')}`,
      ['bench', 1],
    ));
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
  type Node = Record<string, unknown> & { Plans?: Node[] };
  // The scan of the deliveries (alias `d`), and whether a Sort sits above it.
  const find = (node: Node, sorted: boolean): { node: Node; sorted: boolean } | undefined =>
    node.Alias === 'd'
      ? { node, sorted }
      : (node.Plans ?? [])
          .map((child) => find(child, sorted || node['Node Type'] === 'Sort'))
          .find(Boolean);
  const top = (rows[0]!['QUERY PLAN'] as Array<{ Plan: Node }>)[0]!.Plan;
  const found = find(top, false);
  const count = (field: string) => Number(found?.node[field] ?? 0);
  return {
    scan: String(found?.node['Node Type'] ?? 'unknown'),
    sorted: found?.sorted ?? false,
    rowsRead:
      count('Actual Rows') * Math.max(1, count('Actual Loops')) +
      count('Rows Removed by Filter') +
      count('Rows Removed by Index Recheck'),
    buffers: Number(top['Shared Hit Blocks'] ?? 0) + Number(top['Shared Read Blocks'] ?? 0),
    ...(await statusCounts(async (sql) => (await pool.query(sql)).rows)),
  };
}

async function postgresTarget(dir: string): Promise<Target> {
  const server: KillableDatabase = await startDurablePostgres(join(dir, 'pg'));
  const postmaster = postmasterOf(server);
  toCores([postmaster, ...childrenOf(postmaster)], '0');
  const pool = new pg.Pool({ connectionString: server.url, max: 1 });
  await InboxSchema.createTable(pool);
  await Schema.createTable(pool);
  await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event TEXT PRIMARY KEY)`);
  return {
    name: 'PostgreSQL 15 (durable: fsync, synchronous_commit on)',
    async prepare() {
      await pool.query(
        `TRUNCATE ${DEFAULT_INBOX_TABLE}, ${DEFAULT_TABLE}, ${EFFECTS_TABLE} RESTART IDENTITY`,
      );
      await pool.query('CHECKPOINT');
      return server.url;
    },
    cpuUs: () => postgresCpuUs(postmaster),
    claimPlan: () => postgresClaimPlan(pool),
    async close() {
      await pool.end();
      await server.destroy();
    },
  };
}

async function mariadbTarget(dir: string): Promise<Target> {
  const server: KillableDatabase = await startDurableMariadb(join(dir, 'mariadb'));
  // mariadbd writes its pid to <datadir>/<host>.pid; one process, its threads counted in it.
  const pidFile = readdirSync(server.dataDir).find((name) => name.endsWith('.pid'));
  if (!pidFile) throw new Error(`MariaDB wrote no pid file in ${server.dataDir}`);
  const pid = Number(readFileSync(join(server.dataDir, pidFile), 'utf8').trim());
  toCores([pid], '0');
  const setup = await mysql.createConnection(server.url);
  await setup.query('CREATE DATABASE bench');
  await setup.end();
  const url = `${server.url}bench`;
  const pool = mysql.createPool({ uri: url, connectionLimit: 1 });
  await InboxSchema.createTable(pool);
  await Schema.createTable(pool);
  await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event VARCHAR(64) PRIMARY KEY)`);
  return {
    name: 'MariaDB 10.11 (durable: innodb_flush_log_at_trx_commit=1)',
    async prepare() {
      for (const table of [DEFAULT_INBOX_TABLE, DEFAULT_TABLE, EFFECTS_TABLE])
        await pool.query(`TRUNCATE TABLE ${table}`);
      return url;
    },
    cpuUs: () => cpuOf(pid),
    async claimPlan() {
      const [rows] = await pool.query<mysql.RowDataPacket[]>(
        `ANALYZE FORMAT=JSON ${claimStatement('mysql')}`,
        ['bench', 1],
      );
      type Node = { [key: string]: unknown };
      // The deliveries' table entry (`d`), and whether a filesort sits above it.
      const find = (node: Node, sorted: boolean): { table: Node; sorted: boolean } | undefined => {
        const table = node.table as Node | undefined;
        if (table?.table_name === 'd') return { table, sorted };
        for (const [key, value] of Object.entries(node))
          if (typeof value === 'object' && value !== null) {
            const hit = find(value as Node, sorted || key === 'filesort');
            if (hit) return hit;
          }
        return undefined;
      };
      const found = find(JSON.parse(String(rows[0]!.ANALYZE)) as Node, false);
      return {
        scan: `${String(found?.table.access_type ?? 'unknown')} on ${String(found?.table.key ?? 'no key')}`,
        sorted: found?.sorted ?? false,
        rowsRead: Number(found?.table.r_rows ?? 0) * Math.max(1, Number(found?.table.r_loops ?? 1)),
        ...(await statusCounts(async (sql) => (await pool.query<mysql.RowDataPacket[]>(sql))[0])),
      };
    },
    async close() {
      await pool.end();
      await server.destroy();
    },
  };
}

function startServer(mode: InboxServerMode, database: string): ChildProcess {
  const [command, args] = pinned(0, [bundle('inbox-server'), mode, database]);
  return spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/** One drain: the worker's deliveries per second, and CPU per delivery (server and database). */
interface Drain {
  readonly rate: number;
  readonly cpuUs: number;
  readonly databaseCpuUs?: number;
  readonly deliveries: number;
  readonly emptied: boolean;
}

/** One path on one target: the HTTP sample, and for the inbox the drain that followed it. */
async function measure(
  target: Target,
  mode: InboxServerMode,
  round: number,
): Promise<{ sample: Sample; drain?: Drain }> {
  const child = startServer(mode, await target.prepare());
  try {
    // A slow handler leaves a queue behind a timed warm-up: warm up on answered requests instead.
    const warmup = mode === 'guard-slow' ? { requests: 2 * CONNECTIONS } : { requests: 2000 };
    const sample = await loadServer(child, 'unique', round, warmup, target.cpuUs);
    if (sample.non2xx > 0 || sample.errors > 0)
      throw new Error(`${target.name}, ${mode}: ${sample.non2xx} non-2xx, ${sample.errors} errors`);
    if (mode !== 'inbox') return { sample };
    const before = target.cpuUs?.();
    const answer = ask<DrainReport>(child, '', 'drain');
    child.send({ drain: DRAIN_MAX_S });
    const report = await answer;
    const after = target.cpuUs?.();
    const per = (us: number) => us / Math.max(1, report.deliveries);
    return {
      sample,
      drain: {
        rate: report.deliveries / report.seconds,
        cpuUs: per(report.cpuUs),
        ...(before !== undefined && after !== undefined && { databaseCpuUs: per(after - before) }),
        deliveries: report.deliveries,
        emptied: report.emptied,
      },
    };
  } finally {
    await stop(child);
  }
}

/** Per database, the medians the report's "what remains" reads. */
export interface InboxSummary {
  readonly database: string;
  readonly ackRps: number;
  readonly guardRps: number;
  readonly drainRate: number;
  readonly drainDatabaseCpuUs?: number;
  /** The claim's plan after the last round's drain, where the database reports it. */
  readonly claimPlan?: ClaimPlan;
}

/** Runs the section and prints it through `log`; servers started and removed here. */
export async function runInboxBench(log: (line?: string) => void): Promise<InboxSummary[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-inbox-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  const only = process.env.BENCH_INBOX_ONLY?.split(',');
  const targets: Target[] = [];
  try {
    if (!only || only.includes('sqlite')) targets.push(await sqliteTarget(dir));
    if (!only || only.includes('postgres')) targets.push(await postgresTarget(dir));
    if (!only || only.includes('mariadb')) targets.push(await mariadbTarget(dir));
    const samples = new Map<string, Sample[]>();
    const drains = new Map<string, Drain[]>();
    const plans = new Map<string, ClaimPlan>();
    const push = <T>(map: Map<string, T[]>, key: string, value: T) =>
      map.set(key, [...(map.get(key) ?? []), value]);
    for (let round = 0; round < ROUNDS; round++)
      for (const target of targets)
        for (const mode of MODES) {
          const { sample, drain } = await measure(target, mode, round);
          push(samples, `${target.name}|${mode}`, sample);
          if (drain) push(drains, target.name, drain);
          // Before the next measurement empties the table: what the drain left behind.
          if (drain && target.claimPlan) plans.set(target.name, await target.claimPlan());
        }
    report(targets, samples, drains, log);
    return targets.map((target) => {
      const rps = (mode: InboxServerMode) =>
        median(samples.get(`${target.name}|${mode}`)!.map((s) => s.rps));
      const runs = drains.get(target.name)!;
      const databaseCpu = runs.map((d) => d.databaseCpuUs ?? Number.NaN);
      const plan = plans.get(target.name);
      return {
        database: target.name,
        ackRps: rps('inbox'),
        guardRps: rps('guard'),
        drainRate: median(runs.map((d) => d.rate)),
        ...(!databaseCpu.some(Number.isNaN) && { drainDatabaseCpuUs: median(databaseCpu) }),
        ...(plan && { claimPlan: plan }),
      };
    });
  } finally {
    for (const target of targets) await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(
  targets: readonly Target[],
  samples: ReadonlyMap<string, Sample[]>,
  drains: ReadonlyMap<string, Drain[]>,
  log: (line?: string) => void,
): void {
  const perRequest = (s: Sample) => (s.probed ?? Number.NaN) / Math.max(1, s.requests);
  const us = (values: number[]) =>
    values.some(Number.isNaN) ? 'in the server' : median(values).toFixed(0);
  log(
    `## Inbox mode: acknowledgement against the synchronous guard on the same database (issue 12; autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per path, ${ROUNDS} interleaved rounds, server on core 0, load generator on core 1)`,
  );
  log();
  log(
    '| database | path | req/s (median, min–max) | inbox ÷ this (per round) | server CPU µs/req | database CPU µs/req | p99 / p99.9 ms | load generator |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const target of targets) {
    const inbox = samples.get(`${target.name}|inbox`)!;
    for (const mode of MODES) {
      const runs = samples.get(`${target.name}|${mode}`)!;
      const rps = runs.map((r) => r.rps);
      const ratio = runs.map((r, i) => inbox[i]!.rps / r.rps);
      const load = Math.max(...runs.map((r) => r.clientLoad));
      log(
        `| ${target.name} | ${LABELS[mode]} | ${median(rps).toFixed(0)} (${range(rps)}) | ${mode === 'inbox' ? '—' : `${median(ratio).toFixed(2)}× (${range(ratio, 2)})`} | ${median(runs.map((r) => r.cpuUsPerRequest)).toFixed(0)} | ${us(runs.map(perRequest))} | ${median(runs.map((r) => r.p99)).toFixed(0)} / ${median(runs.map((r) => r.p999)).toFixed(0)} | ${load >= 0.9 ? `saturated (${(load * 100).toFixed(0)} %)` : `${(load * 100).toFixed(0)} %`} |`,
      );
    }
  }
  log();
  log(
    '| database | worker (`createInboxWorker`, concurrency 8, the booking handler, transactional receipts) | deliveries/s (median, min–max) | ÷ the endpoint’s ack rate | ÷ the guard’s req/s | server CPU µs/delivery | database CPU µs/delivery |',
  );
  log('|---|---|---|---|---|---|---|');
  for (const target of targets) {
    const runs = drains.get(target.name)!;
    const inbox = samples.get(`${target.name}|inbox`)!;
    const guard = samples.get(`${target.name}|guard`)!;
    const rate = runs.map((d) => d.rate);
    const emptied = runs.filter((d) => d.emptied).length;
    log(
      `| ${target.name} | drain the deliveries the endpoint stored (${median(runs.map((d) => d.deliveries)).toFixed(0)} per round; emptied in ${emptied} of ${runs.length} rounds within ${DRAIN_MAX_S} s) | ${median(rate).toFixed(0)} (${range(rate)}) | ${median(runs.map((d, i) => d.rate / inbox[i]!.rps)).toFixed(2)}× | ${median(runs.map((d, i) => d.rate / guard[i]!.rps)).toFixed(2)}× | ${median(runs.map((d) => d.cpuUs)).toFixed(0)} | ${us(runs.map((d) => d.databaseCpuUs ?? Number.NaN))} |`,
    );
  }
  // The headline, from this run: per database the median of the per-round ratios, then their span.
  const perTarget = (value: (target: Target) => number) => targets.map(value);
  const ratioTo = (mode: InboxServerMode) =>
    perTarget((t) => {
      const inbox = samples.get(`${t.name}|inbox`)!;
      return median(samples.get(`${t.name}|${mode}`)!.map((r, i) => inbox[i]!.rps / r.rps));
    });
  const p99 = (mode: InboxServerMode) =>
    perTarget((t) => median(samples.get(`${t.name}|${mode}`)!.map((r) => r.p99)));
  const drainOverGuard = perTarget((t) => {
    const guard = samples.get(`${t.name}|guard`)!;
    return median(drains.get(t.name)!.map((d, i) => d.rate / guard[i]!.rps));
  });
  log();
  log(
    `Across these databases the endpoint acknowledges ${range(ratioTo('guard'), 1)}× as many deliveries per second as the transactional guard answers, and ${range(ratioTo('guard-slow'), 0)}× as many as the guard whose handler waits ${SLOW_HANDLER_MS} ms; the provider waits ${range(p99('inbox'))} ms at p99 on the endpoint, ${range(p99('guard'))} ms on the guard and ${range(p99('guard-slow'))} ms on the slow guard. The booking still has to happen: the worker does it afterwards at ${range(drainOverGuard, 2)}× the guard's rate (the drain table).`,
  );
  log(
    `No signature (\`provider: 'bench'\`, the key from \`x-event-id\`): a preset's HMAC check would cost the inbox and the guard alike. Every measurement starts on empty tables. PostgreSQL and MariaDB run on the server's core 0 with the Node server, as SQLite runs inside it, so a row's req/s is bounded by both together; "server CPU" is the Node process's, "database CPU" the database server's (PostgreSQL's postmaster and backends, mariadbd's threads, from /proc), per request. In the ${SLOW_HANDLER_MS} ms rows the handler holds the receipt's transaction while it waits: SQLite's one connection allows at most ${1000 / SLOW_HANDLER_MS} such requests per second, a pool of 10 at most ${(10 * 1000) / SLOW_HANDLER_MS}, and their CPU per request is spread over few requests; the inbox endpoint does not wait for a handler at all.`,
  );
  log(
    `The worker runs in the server's process after the endpoint's run, with the HTTP load stopped, over every delivery the endpoint stored (warm-up included); its rate is deliveries processed per second until the backlog was empty or ${DRAIN_MAX_S} s passed, finished deliveries kept in the table (not purged) as they are between purges.`,
  );
}

/** The "what remains" lines of this section: a drain slower than the acknowledgements, and why. */
export function inboxRemaining(inbox: readonly InboxSummary[], log: (line?: string) => void): void {
  for (const row of inbox) {
    const plan = row.claimPlan;
    // Only where the worker, doing the guard's work and more, drains slower than the guard answers.
    if (row.drainRate >= row.guardRps) continue;
    const cpu =
      row.drainDatabaseCpuUs === undefined
        ? ''
        : ` The database spent ${row.drainDatabaseCpuUs.toFixed(0)} µs of CPU per delivery drained.`;
    // The plan explains it only when a claim of one reads far more than one row.
    const explained = plan !== undefined && plan.rowsRead >= 100;
    log(
      `- **Inbox worker, ${row.database} (drains ${row.drainRate.toFixed(0)} deliveries/s; the guard answers ${row.guardRps.toFixed(0)} req/s doing the same booking, the endpoint acknowledges ${row.ackRps.toFixed(0)}/s):**${cpu} ${
        explained
          ? `After the last drain (${plan.done.toLocaleString('en')} deliveries done, ${plan.unfinished.toLocaleString('en')} unfinished), EXPLAIN ANALYZE of the worker's claim of one delivery read ${plan.rowsRead.toLocaleString('en')} rows of the table (${plan.scan}${plan.sorted ? ', then sorted by id' : ''}): a claim costs as much as the deliveries it has to look through (the due ones, or the finished ones before them, depending on the plan), not the ones it leases, and the worker claims a few at a time as its slots free up. An index the claim can read in id order over unfinished deliveries only (not tried here) is the candidate.`
          : "Why was not looked into: the claim's plan does not show it (or the database does not report one)."
      }`,
    );
  }
}

if (require.main === module) {
  runInboxBench(console.log).then(
    (summary) => {
      console.log();
      console.log('(for "What remains, and why":)');
      inboxRemaining(summary, console.log);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
