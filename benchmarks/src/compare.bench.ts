/**
 * @module This tree against a baseline revision in one run (`pnpm bench:compare`): the same
 * benchmark programs bundled twice, against the baseline's package sources (checked out in a
 * temporary git worktree) and against this tree's, measured interleaved on one machine so that
 * its drift hits both alike. What a change that means no behaviour change (a redesign) must show:
 * no regression.
 *
 * - the guard in-process (the `pnpm bench` guard section), pinned to core 0, every round;
 * - HTTP first deliveries and replays on Express, Fastify and Koa over the memory store and
 *   Express over a SQLite file (the HTTP section's rules: server on core 0, autocannon on core 1,
 *   50 connections), the two builds in alternating order in each round;
 * - in the same rounds, each framework's bare route and @node-idempotency on Express (neither
 *   depends on our code: measured once per round, beside the two builds), so that the report
 *   gives what each build's guard adds over its framework's bare route;
 * - then, after the rounds, the architecture step's goals ({@link GOALS}) in paired windows
 *   (./paired): per framework, its bare route, both builds and the peer started once and kept
 *   running, each loaded in turn for a second, saturated and then paced at one request rate
 *   ({@link PACED_SHARE} of the slowest guarded server's saturated rate), a dozen pairs; a
 *   build's added CPU is its CPU per request minus the bare route's in the same pair;
 * - instructions per operation under callgrind (the instructions section's scenarios), once per
 *   build: they repeat where time does not (the in-process ones to within a fraction of a percent,
 *   the Express ones to within a few percent); and, on this tree,
 *   what a first delivery adds over the bare Express route, ours against the peer's.
 *
 * `BENCH_BASELINE=<rev>` picks the baseline (default {@link COMPARE_BASELINE}); `BENCH_ROUNDS`,
 * `BENCH_DURATION` as for `pnpm bench`; `BENCH_COMPARE_INSTRUCTIONS=0` skips callgrind and
 * `BENCH_COMPARE_INSTRUCTIONS=guard-first,express-first` counts only those scenarios
 * (`express-peer-first` asks for the peer's table, which counts the bare route, ours and the peer
 * on this tree: two more Express runs under callgrind, the slow ones);
 * `BENCH_COMPARE_HTTP=0` skips the timed rounds (guard and HTTP) and the paired windows;
 * `BENCH_COMPARE_HTTP=goals` runs only the paired windows (a few minutes: a quick before/after of
 * a change to the request path), and `BENCH_GOALS=koa` (or a list) only some frameworks' of them.
 * The report is printed and written to docs/benchmarks-baseline.md (not with
 * `BENCH_WRITE_DOCS=0`). Inbox mode has its own before/after (`BENCH_BASELINE=<rev> pnpm bench:inbox`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BaselineTree,
  baselineAliases,
  baselineRevision,
  checkoutBaseline,
  currentCommit,
} from './baseline';
import { bundle, pinned } from './bundle';
import type { GuardBenchResult } from './guard.bench';
import { loadServer, median, range, ROUNDS, type Sample, type Scenario } from './http.bench';
import { formatCount, type PerOp, perOp } from './instructions';
import { addedOver, LiveServer, PAIRS, type PairedRun, quartiles, runPairs } from './paired';
import type { Framework, ServerMode } from './server';

/** The commit before the redesign that split the entry points by product, shared the transports and cut the hot path. */
export const COMPARE_BASELINE = '7b27c4b';

/** One build of the benchmark programs: this tree's, or the baseline's. */
interface Build {
  readonly label: 'before' | 'after';
  readonly commit: string;
  readonly alias?: Record<string, string>;
}

const SCENARIOS: ReadonlyArray<{ framework: Framework; mode: ServerMode }> = [
  { framework: 'express', mode: 'memory' },
  { framework: 'express', mode: 'sqlite' },
  { framework: 'fastify', mode: 'memory' },
  { framework: 'koa', mode: 'memory' },
];
const IDS: ReadonlyArray<Scenario['ids']> = ['unique', 'same'];

/** The routes without our code, measured in every round: each framework's bare route, and the peer. */
const REFERENCES: ReadonlyArray<{ framework: Framework; mode: 'bare' | 'peer'; name: string }> = [
  { framework: 'express', mode: 'bare', name: 'express, bare route' },
  { framework: 'express', mode: 'peer', name: 'express, @node-idempotency (memory), first' },
  { framework: 'fastify', mode: 'bare', name: 'fastify, bare route' },
  { framework: 'koa', mode: 'bare', name: 'koa, bare route' },
];

/**
 * The paced windows' request rate, as a share of the slowest guarded server's saturated rate
 * (before, after, and the peer on Express): low enough that every server keeps up even when the
 * machine slows, so each answers every request as it comes.
 */
const PACED_SHARE = 0.5;

/** A paced window that answered fewer than this share of its rate fell behind: the report marks it. */
const KEPT_UP = 0.95;

/** The architecture step's goals for a first delivery: server CPU µs per request added over the framework's bare route. */
const GOALS: ReadonlyArray<{ framework: Framework; addedUs: number; beatPeer?: true }> = [
  { framework: 'express', addedUs: 40, beatPeer: true },
  { framework: 'fastify', addedUs: 15 },
  { framework: 'koa', addedUs: 15 },
];

const INSTRUCTION_SCENARIOS = [
  ['guard in-process, first delivery', 'guard-first'],
  ['guard in-process, replay', 'guard-replay'],
  ['Express + idempotent(), first delivery', 'express-first'],
  ['Express + idempotent(), replay', 'express-replay'],
  ['Express + idempotent() over a SQLite file, first delivery', 'express-sqlite-first'],
  ['Express + idempotent() over a SQLite file, replay', 'express-sqlite-replay'],
  ['guard in-process over a SQLite file, first delivery', 'guard-sqlite-first'],
  [
    'guard in-process over a SQLite file, first delivery, without the listing index',
    'guard-sqlite-first-no-listing-index',
  ],
] as const;

/** `program` bundled for `build` (once per run). */
const bundleFor = (program: string, build: Build) =>
  build.alias
    ? bundle(program, { out: `${program}-${build.commit}`, alias: build.alias })
    : bundle(program);

function guardRun(build: Build): GuardBenchResult[] {
  const [command, args] = pinned(0, ['--expose-gc', bundleFor('guard.bench', build)]);
  return (
    JSON.parse(execFileSync(command, args, { encoding: 'utf8' })) as { results: GuardBenchResult[] }
  ).results;
}

async function httpRun(
  build: Build,
  framework: Framework,
  mode: ServerMode,
  ids: Scenario['ids'],
  round: number,
): Promise<Sample> {
  const [command, args] = pinned(0, [bundleFor('server', build), framework, mode]);
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const sample = await loadServer(child, ids, round);
    if (sample.non2xx > 0 || sample.errors > 0)
      throw new Error(
        `${framework}, ${mode} (${build.label}, ${build.commit}): ${sample.non2xx} non-2xx, ${sample.errors} errors`,
      );
    return sample;
  } finally {
    child.send('stop');
  }
}

/** `after ÷ before`, median (min–max over rounds). */
const ratio = (after: number[], before: number[]) => {
  const per = after.map((value, i) => value / before[i]!);
  return `${median(per).toFixed(2)}× (${range(per, 2)})`;
};

/** The timed rounds' tables: the guard in-process, then HTTP. */
function timedReport(
  log: (line?: string) => void,
  guard: Record<Build['label'], GuardBenchResult[][]>,
  http: Map<string, Record<Build['label'], Sample[]>>,
  references: Map<string, Sample[]>,
): void {
  log('## The guard in-process (in-memory store), µs per call over calling the handler directly');
  log();
  log(
    '| scenario | before (median, min–max) | after (median, min–max) | after ÷ before (per round) |',
  );
  log('|---|---|---|---|');
  const added = (runs: GuardBenchResult[][], i: number) =>
    runs.map((results) => (results[i]!.nsPerOp - results[0]!.nsPerOp) / 1000);
  for (let i = 1; i < guard.after[0]!.length; i++) {
    const b = added(guard.before, i);
    const a = added(guard.after, i);
    log(
      `| ${guard.after[0]![i]!.name} | ${median(b).toFixed(2)} (${range(b, 2)}) | ${median(a).toFixed(2)} (${range(a, 2)}) | ${ratio(a, b)} |`,
    );
  }
  log();
  log(
    '## HTTP (autocannon, 50 connections, server on core 0, load generator on core 1): req/s and server CPU per request',
  );
  log();
  log(
    '| scenario | req/s before | req/s after | after ÷ before (per round) | server CPU µs/req, before → after |',
  );
  log('|---|---|---|---|---|');
  for (const [name, { before: b, after: a }] of http) {
    const rb = b.map((s) => s.rps);
    const ra = a.map((s) => s.rps);
    log(
      `| ${name} | ${median(rb).toFixed(0)} (${range(rb)}) | ${median(ra).toFixed(0)} (${range(ra)}) | ${ratio(ra, rb)} | ${median(b.map((s) => s.cpuUsPerRequest)).toFixed(0)} → ${median(a.map((s) => s.cpuUsPerRequest)).toFixed(0)} |`,
    );
  }
  for (const [name, samples] of references) {
    const rps = samples.map((s) => s.rps);
    log(
      `| ${name} (no code of ours) | ${median(rps).toFixed(0)} (${range(rps)}) | | | ${median(samples.map((s) => s.cpuUsPerRequest)).toFixed(0)} |`,
    );
  }
  log();
  saturatedAddedReport(log, http, references);
}

const shown = (values: number[]) => `${median(values).toFixed(0)} (${range(values)})`;

/** Each build's first delivery at saturation: server CPU added over the framework's bare route in the same round. */
function saturatedAddedReport(
  log: (line?: string) => void,
  http: Map<string, Record<Build['label'], Sample[]>>,
  references: Map<string, Sample[]>,
): void {
  const cpu = (samples: Sample[]) => samples.map((s) => s.cpuUsPerRequest);
  /** Per round: `samples`' CPU minus the same round's bare route of `framework`. */
  const added = (samples: Sample[], framework: Framework) => {
    const bare = cpu(references.get(`${framework}, bare route`)!);
    return cpu(samples).map((us, round) => us - bare[round]!);
  };
  log(
    "## First deliveries at saturation: server CPU µs per request added over the same framework's bare route in the same round (median, min–max)",
  );
  log();
  log('| first delivery | before | after |');
  log('|---|---|---|');
  for (const { framework } of GOALS) {
    const runs = http.get(`${framework}, memory, first`)!;
    log(
      `| ${framework}, memory | ${shown(added(runs.before, framework))} | ${shown(added(runs.after, framework))} |`,
    );
  }
  log(
    `| express, @node-idempotency (memory) | ${shown(added(references.get('express, @node-idempotency (memory), first')!, 'express'))} | |`,
  );
  log();
  log(
    "At saturation each server answers as fast as it can, so the rows do not run alike: the bare route is fast enough to keep the load generator busy, a guarded route leaves it waiting, and a response written to a waiting client pays the kernel's wake-up of it inside the server's `writev`. Profiled on Koa (2026-12-07, first deliveries, µs per request): `writev` 14.4 on the bare route, 21.4 on the guarded one, 7 of the 22 µs 'added' spent in the kernel for no code of ours. The goals are judged on the paired windows below, paced, where every server runs at the same request rate.",
  );
  log();
}

/** The goals `BENCH_GOALS` names (`koa`, `express,fastify`), else all of them. */
function goalsMeasured(): typeof GOALS {
  const only = process.env.BENCH_GOALS?.split(',');
  return only ? GOALS.filter((goal) => only.includes(goal.framework)) : GOALS;
}

/** The goals' servers, started once per framework: its bare route, each build's guarded route and, on Express, the peer. */
async function pairedGoals(builds: Build[]): Promise<Map<Framework, PairedRun>> {
  const after = builds.find((build) => build.label === 'after')!;
  const runs = new Map<Framework, PairedRun>();
  for (const goal of goalsMeasured()) {
    const servers: LiveServer[] = [];
    try {
      servers.push(
        await LiveServer.start('bare', bundleFor('server', after), goal.framework, 'bare'),
      );
      for (const build of builds)
        servers.push(
          await LiveServer.start(build.label, bundleFor('server', build), goal.framework, 'memory'),
        );
      if (goal.beatPeer)
        servers.push(
          await LiveServer.start('peer', bundleFor('server', after), goal.framework, 'peer'),
        );
      runs.set(goal.framework, await runPairs(servers, PACED_SHARE));
    } finally {
      for (const server of servers) server.stop();
    }
  }
  return runs;
}

/** The first deliveries against the goals: each build's added CPU per pair, paced (judged) and saturated (beside). */
function pairedReport(log: (line?: string) => void, runs: Map<Framework, PairedRun>): void {
  log(
    `## First deliveries against the goals: server CPU µs per request added over the same framework's bare route, in paired windows (${PAIRS} pairs; median (q1–q3) of the per-pair differences)`,
  );
  log();
  log(
    `Each framework's servers (its bare route, both builds, the peer on Express) ran side by side on core 0, started once and warmed up; in each pair every one was loaded for 1 s saturated, then 1 s paced at one rate (${PACED_SHARE * 100} % of the slowest guarded server's saturated rate), in an order that rotates from pair to pair. The goals are judged on the paced windows, where every server answers the same requests at the same pace; at saturation the bare route keeps the load generator busy while a guarded one leaves it waiting, and the server's \`writev\` then pays the client's wake-up.`,
  );
  log();
  log(
    '| first delivery | paced rate, req/s | bare route µs/req (paced) | before, paced | after, paced | after, saturated | goal | after meets it |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const goal of goalsMeasured()) {
    const run = runs.get(goal.framework)!;
    const paced = (name: string) => addedOver(run.paced, name, 'bare');
    const after = paced('after');
    const peer = goal.beatPeer ? paced('peer') : [];
    const within = median(after) <= goal.addedUs;
    const ahead = !goal.beatPeer || median(after) < median(peer);
    const behind = [...run.paced.values()].flat().filter((w) => w.rps < run.rate * KEPT_UP).length;
    const peerCell = goal.beatPeer
      ? ` and under @node-idempotency's ${quartiles(peer)} (saturated ${quartiles(addedOver(run.saturated, 'peer', 'bare'))})`
      : '';
    log(
      `| ${goal.framework}, memory | ${run.rate} | ${quartiles(run.paced.get('bare')!.map((w) => w.cpuUsPerRequest))} | ${quartiles(paced('before'))} | ${quartiles(after)} | ${quartiles(addedOver(run.saturated, 'after', 'bare'))} | ≤ ${goal.addedUs}${peerCell} | ${within && ahead ? 'yes' : '**no**'}${behind ? ` (${behind} paced windows fell behind their rate)` : ''} |`,
    );
  }
  log();
}

export async function runCompare(log: (line?: string) => void): Promise<void> {
  const revision = baselineRevision(COMPARE_BASELINE);
  if (!revision) throw new Error('bench:compare needs a baseline: BENCH_BASELINE=<rev>');
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-compare-'));
  let tree: BaselineTree | undefined;
  try {
    tree = checkoutBaseline(revision, join(dir, 'baseline'));
    const before: Build = {
      label: 'before',
      commit: tree.short,
      alias: baselineAliases(tree.root),
    };
    const after: Build = { label: 'after', commit: currentCommit().replace(' + uncommitted', '') };
    const builds = [before, after];
    const guard = { before: [] as GuardBenchResult[][], after: [] as GuardBenchResult[][] };
    const http = new Map<string, { before: Sample[]; after: Sample[] }>();
    const references = new Map<string, Sample[]>();
    const httpMode = process.env.BENCH_COMPARE_HTTP;
    const rounds = httpMode === '0' || httpMode === 'goals' ? 0 : ROUNDS;
    for (let round = 0; round < rounds; round++) {
      // Alternate which build goes first, so that neither always runs on a warmer machine.
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) guard[build.label].push(guardRun(build));
      for (const { framework, mode, name } of REFERENCES)
        references.set(name, [
          ...(references.get(name) ?? []),
          await httpRun(after, framework, mode, mode === 'peer' ? 'unique' : 'none', round),
        ]);
      for (const { framework, mode } of SCENARIOS)
        for (const ids of IDS) {
          const name = `${framework}, ${mode}, ${ids === 'unique' ? 'first' : 'replay'}`;
          const entry = http.get(name) ?? { before: [], after: [] };
          for (const build of order)
            entry[build.label].push(await httpRun(build, framework, mode, ids, round));
          http.set(name, entry);
        }
    }
    const paired = httpMode === '0' ? undefined : await pairedGoals(builds);

    log(`# This tree against a baseline, measured in one run`);
    log();
    log(
      `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, by \`pnpm bench:compare\`: before = \`${before.commit}\`${revision === COMPARE_BASELINE ? ' (the commit before the entry-points redesign)' : ''}, after = \`${currentCommit()}\`; ${rounds} interleaved rounds, the two builds in alternating order.`,
    );
    log();
    if (rounds > 0) timedReport(log, guard, http, references);
    if (paired) pairedReport(log, paired);
    const instructions = process.env.BENCH_COMPARE_INSTRUCTIONS ?? '';
    if (instructions !== '0') {
      const counted = (scenario: string) =>
        !instructions || instructions.split(',').includes(scenario);
      /** This tree's counts, by scenario: the peer's table reuses its first delivery's. */
      const afterCounts = new Map<string, PerOp>();
      const rows = INSTRUCTION_SCENARIOS.filter(([, scenario]) => counted(scenario));
      if (rows.length > 0) {
        log(
          '## Instructions per operation (callgrind, outside the garbage collector; the difference of a run with 2n and one with n operations, less the collections in each)',
        );
        log();
        log('| path | before | after | after − before | collector before → after (beside) |');
        log('|---|---|---|---|---|');
        const targets = builds.map((build) => bundleFor('instructions-target', build));
        for (const [name, scenario] of rows) {
          const [b, a] = targets.map((target) => perOp(target, scenario));
          afterCounts.set(scenario, a!);
          const change = a!.instructions - b!.instructions;
          const sign = change >= 0 ? '+' : '−';
          log(
            `| ${name} | ${formatCount(b!.instructions)} | ${formatCount(a!.instructions)} | ${sign}${formatCount(Math.abs(change))} (${((change / b!.instructions) * 100).toFixed(1)} %) | ${formatCount(b!.collector)} → ${formatCount(a!.collector)} |`,
          );
        }
        log();
        log(
          'The in-process rows repeat to within 2 % when n and the warm-up change; the collector column moves with where collections fall and is no regression signal (the instructions section of docs/benchmarks.md).',
        );
      }
      if (counted('express-peer-first'))
        peerInstructionsReport(log, bundleFor('instructions-target', after), afterCounts);
    }
  } finally {
    tree?.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An Express first delivery against the peer's, in instructions on this tree (`target`): each
 * path's count and what it adds over the bare Express route, all through light-my-request (no
 * socket), so that the comparison the paced windows leave to the noise has a count beside it.
 * `after` holds the counts the table above made already.
 */
function peerInstructionsReport(
  log: (line?: string) => void,
  target: string,
  after: ReadonlyMap<string, PerOp>,
): void {
  const of = (scenario: string) => after.get(scenario) ?? perOp(target, scenario);
  const bare = of('express-bare');
  log();
  log(
    "## An Express first delivery against @node-idempotency, in instructions (this tree; no socket, so the kernel's share is not in it)",
  );
  log();
  log('| path | instructions / request | added over the bare route | collector (beside) |');
  log('|---|---|---|---|');
  log(
    `| express, bare route | ${formatCount(bare.instructions)} | — | ${formatCount(bare.collector)} |`,
  );
  for (const [name, scenario] of [
    ['express, memory, first (ours)', 'express-first'],
    ['express, @node-idempotency (memory), first', 'express-peer-first'],
  ] as const) {
    const count = of(scenario);
    log(
      `| ${name} | ${formatCount(count.instructions)} | ${formatCount(count.instructions - bare.instructions)} | ${formatCount(count.collector)} |`,
    );
  }
  log();
  log(
    "The Express counts move by a few percent from run to run (the bare route read 490,455 to 529,750 in three runs on 2026-12-07), so what a path adds moves by tens of thousands: read ours against the peer's within one run.",
  );
}

if (require.main === module) {
  const lines: string[] = [];
  runCompare((line = '') => {
    console.log(line);
    lines.push(line);
  }).then(
    () =>
      process.env.BENCH_WRITE_DOCS !== '0' &&
      writeFileSync(
        join(__dirname, '..', '..', 'docs', 'benchmarks-baseline.md'),
        `${lines.join('\n')}\n`,
      ),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
