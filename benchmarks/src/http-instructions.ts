/**
 * @module Instructions per HTTP request over a real socket, counted by `valgrind --tool=callgrind`
 * on the benchmark server alone (server.ts): the count load does not change, where the HTTP
 * table's CPU µs do. The server runs under callgrind; this process, outside it, sends the requests
 * one after another on one keep-alive connection, each first delivery with a fresh event id.
 *
 * Each figure is the difference of a run with warm-up + 2n requests and one with warm-up + n,
 * divided by n (start-up, warm-up and shutdown cancel out), less the instructions inside V8's
 * collections, which are reported beside it (see instructions.ts for why). The in-memory store is
 * held at a steady size (`BENCH_MAX_RECEIPTS`, read by server.ts) so that no rehash of a growing
 * map lands in one run of the pair only.
 *
 * `pnpm --filter @webhook-idempotency/benchmarks bench:http-instructions` counts Express (bare,
 * memory first, @node-idempotency first), Fastify and Koa (bare, memory first) for this tree;
 * `BENCH_BASELINE=<rev>` counts the same against our packages at that revision too (a temporary
 * worktree, as bench:compare does): only the guarded rows, since the bare routes and the peer run
 * none of our code. `BENCH_ONLY=express` and `BENCH_MODES=bare,memory` narrow the
 * rows; `BENCH_INSTRUCTIONS_N` (default 500) and `BENCH_INSTRUCTIONS_WARMUP` (default 1,000)
 * change the sizes, which the figures must not follow; `BENCH_REPEAT=2` counts every row twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselineAliases, baselineRevision, checkoutBaseline, currentCommit } from './baseline';
import { bundle } from './bundle';
import { ask } from './http.bench';
import { collectorCost, DETERMINISTIC, formatCount } from './instructions';
import type { Framework, ServerMode } from './server';

/**
 * Warm-up and measured requests. Under these flags V8 has finished tiering the guarded Express
 * server well before 1,000 requests (`--trace-opt --trace-deopt` show no optimization or
 * deoptimization between requests 1,000 and 2,000), and a row's two runs take several minutes of
 * a core under callgrind, so the defaults are kept small.
 */
const N = Number(process.env.BENCH_INSTRUCTIONS_N ?? 500);
const WARMUP = Number(process.env.BENCH_INSTRUCTIONS_WARMUP ?? 1_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
/** The in-memory store's bound in the server: below the warm-up, so it holds a steady size. */
const MAX_RECEIPTS = '1000';
const BODY = '{"type":"payment.succeeded","data":{"amount":500000}}';

const ROWS: ReadonlyArray<{ framework: Framework; mode: ServerMode; name: string }> = [
  { framework: 'express', mode: 'bare', name: 'express, bare route' },
  { framework: 'express', mode: 'memory', name: 'express, memory, first' },
  { framework: 'express', mode: 'peer', name: 'express, @node-idempotency (memory), first' },
  { framework: 'fastify', mode: 'bare', name: 'fastify, bare route' },
  { framework: 'fastify', mode: 'memory', name: 'fastify, memory, first' },
  { framework: 'koa', mode: 'bare', name: 'koa, bare route' },
  { framework: 'koa', mode: 'memory', name: 'koa, memory, first' },
];

const listed = (name: string, value: string) =>
  !process.env[name] || process.env[name]!.split(',').includes(value);

/** One POST of a first delivery (`id`) on `agent`'s one connection; rejects on a non-2xx. */
function post(port: number, agent: Agent, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-event-id': id },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

/** Waits for `child` to exit and resolves with its stderr (valgrind's report). */
function exited(child: ChildProcess, stderr: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0
        ? resolve(stderr.join(''))
        : reject(new Error(`server exited with ${code}:\n${stderr.join('').slice(-2000)}`)),
    );
  });
}

/** All instructions and the collector's of one server run answering `requests` first deliveries. */
async function countRun(server: string, framework: Framework, mode: ServerMode, requests: number) {
  const dir = mkdtempSync(join(tmpdir(), 'wi-http-callgrind-'));
  const file = join(dir, 'callgrind.out');
  const args = ['--tool=callgrind', `--callgrind-out-file=${file}`, process.execPath];
  const child = spawn('valgrind', [...args, ...DETERMINISTIC, server, framework, mode], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, BENCH_MAX_RECEIPTS: MAX_RECEIPTS },
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const done = exited(child, stderr);
  try {
    const port = await ask<number>(child, '', 'port');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const prefix = `evt_${process.pid}_${requests}_${Date.now()}_`;
    for (let i = 0; i < requests; i++) await post(port, agent, `${prefix}${i}`);
    agent.destroy();
    child.send('stop');
    const out = await done;
    const match = /Collected : (\d+)/.exec(out);
    if (!match) throw new Error(`no instruction count:\n${out.slice(-2000)}`);
    return { total: Number(match[1]), collector: collectorCost(file) };
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Instructions per request of one row, outside the collector, and the collector's beside. */
async function perRequest(server: string, framework: Framework, mode: ServerMode) {
  const once = await countRun(server, framework, mode, WARMUP + N);
  const twice = await countRun(server, framework, mode, WARMUP + 2 * N);
  const collector = (twice.collector - once.collector) / N;
  return { instructions: (twice.total - once.total) / N - collector, collector };
}

/** The rows a build counts: the baseline's only those that run our packages (bare and peer do not). */
const rowsOf = (rows: typeof ROWS, baseline: boolean) =>
  baseline ? rows.filter((row) => row.mode === 'memory') : rows;

/** Counts every row for this tree (and the guarded ones for the baseline, if any) and prints the table. */
async function main(): Promise<void> {
  const log = (line = '') => console.log(line);
  const rows = ROWS.filter(
    (r) => listed('BENCH_ONLY', r.framework) && listed('BENCH_MODES', r.mode),
  );
  const revision = baselineRevision('0');
  const base = revision
    ? checkoutBaseline(revision, mkdtempSync(join(tmpdir(), 'wi-hi-')))
    : undefined;
  try {
    const builds = [
      {
        label: currentCommit(),
        server: bundle('server', { out: 'server-instructions' }),
        baseline: false,
      },
      ...(base
        ? [
            {
              label: base.short,
              server: bundle('server', {
                out: `server-${base.short}`,
                alias: baselineAliases(base.root),
              }),
              baseline: true,
            },
          ]
        : []),
    ];
    log(
      `## Instructions per HTTP request (callgrind on the server, Node ${process.version}; one keep-alive connection, requests in sequence; warm-up ${WARMUP}, n = ${N}; outside the garbage collector)`,
    );
    log();
    log('| row | build | instructions / request | added over bare | collector (beside) |');
    log('|---|---|---|---|---|');
    // The bare routes are counted once, with this tree's bundle: they run none of our code.
    const bare = new Map<Framework, number>();
    for (const build of builds)
      for (const row of rowsOf(rows, build.baseline))
        for (let r = 0; r < REPEAT; r++) {
          const { instructions, collector } = await perRequest(
            build.server,
            row.framework,
            row.mode,
          );
          if (row.mode === 'bare') bare.set(row.framework, instructions);
          const over = bare.get(row.framework);
          const added =
            row.mode === 'bare' || over === undefined ? '—' : formatCount(instructions - over);
          log(
            `| ${row.name} | ${build.label} | ${formatCount(instructions)} | ${added} | ${formatCount(collector)} |`,
          );
        }
  } finally {
    base?.remove();
  }
}

if (require.main === module)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
