/**
 * @module Inbox mode: how fast the inbox endpoint acknowledges
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
 * Every path runs on two builds of the same server, interleaved in every round: our packages at
 * a baseline revision ({@link INBOX_BASELINE}, or `BENCH_BASELINE=<rev>`; `BENCH_BASELINE=0`
 * for none), checked out in a temporary git worktree, then this tree's. Every measurement starts
 * on empty tables made by its build's own schema: a new SQLite file, or PostgreSQL's tables
 * truncated (dropped and created again when the two builds' DDL differs) and checkpointed,
 * MariaDB's likewise. No signature: `provider: 'bench'`, the key from `x-event-id`.
 * `BENCH_INBOX_ONLY=sqlite,postgres` (any of `sqlite`, `postgres`, `mariadb`) narrows a run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INBOX_TABLE, DEFAULT_TABLE } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  type KillableDatabase,
  startDurableMariadb,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { dialects } from '../../packages/sql/src/dialects';
import { buildInboxQueries } from '../../packages/sql/src/inbox/queries';
import {
  type BaselineTree,
  baselineRevision,
  checkoutBaseline,
  currentCommit,
  baselineAliases,
} from './baseline';
import { bundle, pinned } from './bundle';
import { ask, CONNECTIONS, loadServer, DURATION_S, ROUNDS, type Sample } from './http.bench';
import { type ClaimPlan, type InboxSummary, inboxRemaining } from './inbox-goals';
import { type Ddl, type DrainReport, EFFECTS_TABLE, type InboxServerMode } from './inbox-paths';
import {
  type BuildInfo,
  type BuildLabel,
  type Drain,
  InboxRuns,
  inboxReport,
  summarize,
} from './inbox-report';

export type { ClaimPlan, InboxSummary };
export { inboxRemaining };

/**
 * The "before" of the section's tables: the commit before the inbox throughput work (group
 * commit, the claim's id order), `git rev-parse f4a7e92^`.
 */
export const INBOX_BASELINE = 'd3f30655e582084e65b7cbeaf1e057444293d6bc';

const MODES: readonly InboxServerMode[] = ['inbox', 'guard', 'guard-slow'];
/** The longest a drain runs, past which its rate is taken over what it processed. */
const DRAIN_MAX_S = DURATION_S * 3;

/** One bundle of the inbox server: the packages it was built from, and their tables. */
interface Build extends BuildInfo {
  readonly server: string;
  readonly ddl: Ddl;
}

/** A database both paths run on, prepared empty before each measurement. */
interface Target {
  readonly name: string;
  /** The endpoint's acknowledgements per second the report's goal table asks for. */
  readonly ackGoal: number;
  /** The server's `<database>` argument for a fresh, empty measurement on `ddl`'s tables. */
  prepare(ddl: Ddl): Promise<string>;
  /** The database's own CPU µs so far, when it runs outside the server's process. */
  cpuUs?: () => number;
  /** How the worker's claim reads the table as the last drain left it, where the plan says. */
  claimPlan?: () => Promise<ClaimPlan>;
  close(): Promise<void>;
}

async function sqliteTarget(dir: string): Promise<Target> {
  let n = 0;
  let file: string | undefined;
  const remove = () => {
    if (file) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  };
  return {
    name: 'SQLite file (WAL, synchronous=NORMAL)',
    ackGoal: 5000,
    async prepare(ddl) {
      remove();
      file = join(dir, `inbox-${++n}.sqlite`);
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      for (const statement of ddl.sqlite) db.exec(statement);
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
  const sql = buildInboxQueries(dialects[dialect], DEFAULT_INBOX_TABLE, true).leaseSelect(1);
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
 * Empties the tables for a measurement on `statements`' schema: truncated where they were made by
 * the same statements, else dropped and made again. Returns the schema the tables now have.
 */
async function emptyTables(
  query: (sql: string) => Promise<unknown>,
  statements: readonly string[],
  created: string | undefined,
): Promise<string> {
  const schema = statements.join(';\n');
  if (schema === created)
    for (const table of [DEFAULT_INBOX_TABLE, DEFAULT_TABLE])
      await query(`TRUNCATE TABLE ${table}`);
  else {
    for (const table of [DEFAULT_INBOX_TABLE, DEFAULT_TABLE])
      await query(`DROP TABLE IF EXISTS ${table}`);
    for (const statement of statements) await query(statement);
  }
  await query(`TRUNCATE TABLE ${EFFECTS_TABLE}`);
  return schema;
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

/** The lease call's time bound as `SqlInbox` sets it by default (`leaseTimeoutMs`). */
const CLAIM_TIMEOUT_MS = 5000;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the worker's claim of one delivery on PostgreSQL, in a transaction
 * prepared as the worker's claim prepares its own (the same settings first), then rolled back: it
 * leases nothing. With what the table holds.
 */
export async function postgresClaimPlan(pool: pg.Pool): Promise<ClaimPlan> {
  const { setup } = dialects.postgres.inbox.boundLease('', CLAIM_TIMEOUT_MS);
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
  await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event TEXT PRIMARY KEY)`);
  let created: string | undefined;
  return {
    name: 'PostgreSQL 15 (durable: fsync, synchronous_commit on)',
    ackGoal: 3000,
    async prepare(ddl) {
      // TRUNCATE … RESTART IDENTITY: the ids start over as in a new table.
      created = await emptyTables(
        (sql) => pool.query(sql.startsWith('TRUNCATE') ? `${sql} RESTART IDENTITY` : sql),
        ddl.postgres,
        created,
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
  await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event VARCHAR(64) PRIMARY KEY)`);
  let created: string | undefined;
  return {
    name: 'MariaDB 10.11 (durable: innodb_flush_log_at_trx_commit=1)',
    ackGoal: 3000,
    async prepare(ddl) {
      created = await emptyTables((sql) => pool.query(sql), ddl.mysql, created);
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

/** The inbox server bundled from this tree's packages, or with `tree`'s (the baseline). */
function buildOf(tree?: BaselineTree): Build {
  const server = tree
    ? bundle('inbox-server', {
        out: `inbox-server-${tree.short}`,
        alias: baselineAliases(tree.root),
      })
    : bundle('inbox-server');
  const ddl = JSON.parse(
    execFileSync(process.execPath, [server, 'ddl'], { encoding: 'utf8' }),
  ) as Ddl;
  return tree
    ? {
        label: 'before',
        commit: tree.short,
        ...(tree.sha === INBOX_BASELINE && { note: "the commit before issue 20's work" }),
        server,
        ddl,
      }
    : { label: 'after', commit: currentCommit(), server, ddl };
}

function startServer(build: Build, mode: InboxServerMode, database: string): ChildProcess {
  const [command, args] = pinned(0, [build.server, mode, database]);
  return spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/** One path on one target and build: the HTTP sample, and for the inbox the drain that followed it. */
async function measure(
  target: Target,
  build: Build,
  mode: InboxServerMode,
  round: number,
): Promise<{ sample: Sample; drain?: Drain }> {
  const child = startServer(build, mode, await target.prepare(build.ddl));
  try {
    // A slow handler leaves a queue behind a timed warm-up: warm up on answered requests instead.
    const warmup = mode === 'guard-slow' ? { requests: 2 * CONNECTIONS } : { requests: 2000 };
    const sample = await loadServer(child, 'unique', round, warmup, target.cpuUs);
    if (sample.non2xx > 0 || sample.errors > 0)
      throw new Error(
        `${target.name}, ${mode} (${build.label}, ${build.commit}): ${sample.non2xx} non-2xx, ${sample.errors} errors`,
      );
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

/** Runs the section and prints it through `log`; servers and the baseline's checkout made and removed here. */
export async function runInboxBench(log: (line?: string) => void): Promise<InboxSummary[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-inbox-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  const only = process.env.BENCH_INBOX_ONLY?.split(',');
  const revision = baselineRevision(INBOX_BASELINE);
  const targets: Target[] = [];
  let tree: BaselineTree | undefined;
  try {
    if (revision) tree = checkoutBaseline(revision, join(dir, 'baseline'));
    // Baseline first in every round, then this tree.
    const builds = [...(tree ? [buildOf(tree)] : []), buildOf()];
    if (!only || only.includes('sqlite')) targets.push(await sqliteTarget(dir));
    if (!only || only.includes('postgres')) targets.push(await postgresTarget(dir));
    if (!only || only.includes('mariadb')) targets.push(await mariadbTarget(dir));
    const runs = new InboxRuns(
      builds,
      targets.map((t) => t.name),
    );
    const plans = new Map<string, ClaimPlan>();
    for (let round = 0; round < ROUNDS; round++)
      for (const target of targets)
        for (const mode of MODES)
          for (const build of builds) {
            const { sample, drain } = await measure(target, build, mode, round);
            const label: BuildLabel = build.label;
            runs.add({ build: label, database: target.name, mode }, sample);
            if (!drain) continue;
            runs.addDrain(label, target.name, drain);
            // Before the next measurement empties the table: what this tree's drain left behind.
            if (label === 'after' && target.claimPlan)
              plans.set(target.name, await target.claimPlan());
          }
    const summaries = targets.map((target) =>
      summarize(runs, { name: target.name, ackGoal: target.ackGoal }, plans.get(target.name)),
    );
    inboxReport(runs, summaries, { drainMaxS: DRAIN_MAX_S, log });
    return summaries;
  } finally {
    for (const target of targets) await target.close();
    tree?.remove();
    rmSync(dir, { recursive: true, force: true });
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
