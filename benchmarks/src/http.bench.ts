/**
 * @module HTTP cost, in interleaved rounds: every scenario (Express, Fastify and Koa bare and
 * guarded, the best peer on Express) runs once per round, so drift of the machine hits all of
 * them alike. The server runs pinned to core 0, this load generator to core 1 (`taskset`). Per
 * scenario: median req/s (min–max over rounds), the server's own CPU per request and what it adds
 * over the same framework's bare route of the same round, p99/p99.9 latency, the server's RSS at
 * the end, and whether the load generator was saturated.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { bundle, pinned } from './bundle';
import type { Framework, ServerMode } from './server';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = 50;

/** A scenario: a server and how the load generator picks event ids. */
export interface Scenario {
  readonly name: string;
  readonly framework: Framework;
  readonly mode: ServerMode;
  /** `unique`: every request a new event id (first deliveries); `same`: one id (replays). */
  readonly ids: 'unique' | 'same' | 'none';
}

const scenario = (framework: Framework, mode: ServerMode, ids: Scenario['ids']): Scenario => ({
  name:
    mode === 'bare'
      ? `${framework}, bare route`
      : `${framework}, ${mode === 'peer' ? '@node-idempotency (memory)' : mode}, ${ids === 'unique' ? 'first' : 'replay'}`,
  framework,
  mode,
  ids,
});

const ALL_SCENARIOS: readonly Scenario[] = [
  scenario('express', 'bare', 'none'),
  scenario('express', 'memory', 'unique'),
  scenario('express', 'memory', 'same'),
  scenario('express', 'peer', 'unique'),
  scenario('express', 'peer', 'same'),
  scenario('express', 'sqlite', 'unique'),
  scenario('express', 'sqlite', 'same'),
  scenario('fastify', 'bare', 'none'),
  scenario('fastify', 'memory', 'unique'),
  scenario('fastify', 'memory', 'same'),
  scenario('koa', 'bare', 'none'),
  scenario('koa', 'memory', 'unique'),
  scenario('koa', 'memory', 'same'),
];

const listed = (name: string, value: string) =>
  !process.env[name] || process.env[name]!.split(',').includes(value);

/**
 * `BENCH_ONLY=express` (a comma-separated list of frameworks) narrows a run for profiling work;
 * `BENCH_MODES=bare,memory,peer` (server modes) and `BENCH_IDS=unique` (`unique` first
 * deliveries, `same` replays; a bare route always runs) narrow it further.
 */
export const SCENARIOS: readonly Scenario[] = ALL_SCENARIOS.filter(
  (s) =>
    listed('BENCH_ONLY', s.framework) &&
    listed('BENCH_MODES', s.mode) &&
    (s.ids === 'none' || listed('BENCH_IDS', s.ids)),
);

/** One measurement of one server: what the HTTP tables print. */
export interface Sample {
  rps: number;
  cpuUsPerRequest: number;
  p99: number;
  p999: number;
  rssMiB: number;
  /** The load generator's own CPU share of its core over the run (1 = saturated). */
  clientLoad: number;
  non2xx: number;
  /** Requests that got no answer (connection errors and timeouts). */
  errors: number;
  /** Requests answered in the measured window. */
  requests: number;
  /** How much `probe` (a cumulative counter, such as a database's CPU µs) grew over the window. */
  probed?: number;
}

/** Sends `message` (none: only listens) to a benchmark server and resolves with the reply's `field`. */
export function ask<T>(child: ChildProcess, message: string, field: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`benchmark server exited with ${code}`));
    const onMessage = (reply: Record<string, T>) => {
      if (field in reply) {
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(reply[field]!);
      }
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (message) child.send(message);
  });
}

/**
 * One load of the benchmark route on `port` with autocannon (50 connections, the bench's body):
 * for `limit` (a duration in seconds, or a number of requests), as fast as the server answers or
 * paced at `rate` req/s in all; `eventId` gives each request's `X-Event-Id` (none: no header).
 */
export function loadRoute(
  port: number,
  limit: { duration: number } | { amount: number },
  eventId: (() => string) | undefined,
  rate?: number,
) {
  return autocannon({
    url: `http://127.0.0.1:${port}/hook`,
    method: 'POST',
    connections: CONNECTIONS,
    ...limit,
    ...(rate !== undefined && { overallRate: rate }),
    headers: { 'content-type': 'application/json' },
    body: '{"type":"payment.succeeded","data":{"amount":500000}}',
    requests: [
      {
        setupRequest: (request) =>
          eventId
            ? { ...request, headers: { ...request.headers, 'x-event-id': eventId() } }
            : request,
      },
    ],
  });
}

/** Starts the server of `s` (bundled ahead of time), pinned to core 0. */
function startServer(s: Scenario): ChildProcess {
  const [command, args] = pinned(0, [bundle('server'), s.framework, s.mode]);
  return spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/**
 * How a measurement warms up: for `seconds` (the requests still in flight at its end are left to
 * the server), or for `requests` answered (nothing left in flight: for slow handlers, whose queue
 * left behind would otherwise fill the measured window).
 */
export type Warmup = { readonly seconds: number } | { readonly requests: number };

/**
 * Loads a running benchmark server (one that sends `{ port }` once listening and answers `cpu`
 * with its `process.cpuUsage()` and RSS) with autocannon: a warm-up, then `DURATION_S` measured.
 * `ids` says how event ids are picked; `round` keeps unique ids unique across rounds; `probe`, when
 * given, is read at both ends of the measured window; `rate`, when given, paces the measured window
 * at that many requests per second in all instead of as fast as the server answers (the warm-up
 * still runs at full speed, so that a paced server is as warm as a saturated one). The server is
 * left running.
 */
export async function loadServer(
  child: ChildProcess,
  ids: Scenario['ids'],
  round: number,
  warmup: Warmup = { seconds: 1 },
  probe?: () => number,
  rate?: number,
): Promise<Sample> {
  const port = await ask<number>(child, '', 'port');
  let counter = 0;
  const eventId =
    ids === 'none'
      ? undefined
      : ids === 'unique'
        ? () => `evt_${round}_${counter++}`
        : () => 'evt_same';
  const run = (limit: { duration: number } | { amount: number }, paced?: number) =>
    loadRoute(port, limit, eventId, paced);
  // Warm-up (and, for replays, the one first delivery).
  await run('seconds' in warmup ? { duration: warmup.seconds } : { amount: warmup.requests });
  const before = await ask<NodeJS.CpuUsage>(child, 'cpu', 'cpu');
  const probeBefore = probe?.();
  const clientBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await run({ duration: DURATION_S }, rate);
  const wallUs = Number(process.hrtime.bigint() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  const probeAfter = probe?.();
  const after = await ask<NodeJS.CpuUsage & { rss: number }>(child, 'cpu', 'cpu');
  const cpuUs = after.user - before.user + (after.system - before.system);
  return {
    rps: result.requests.average,
    cpuUsPerRequest: cpuUs / Math.max(1, result.requests.total),
    p99: result.latency.p99,
    p999: (result.latency as unknown as Record<string, number>).p99_9 ?? Number.NaN,
    rssMiB: after.rss / 2 ** 20,
    clientLoad: (client.user + client.system) / wallUs,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
    ...(probeBefore !== undefined &&
      probeAfter !== undefined && { probed: probeAfter - probeBefore }),
  };
}

async function measure(s: Scenario, round: number): Promise<Sample> {
  const child = startServer(s);
  try {
    return await loadServer(child, s.ids, round);
  } finally {
    child.send('stop');
  }
}

/** The median of `values`. */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** `min–max` of `values`. */
export const range = (values: number[], digits = 0): string =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/** Per scenario: the added CPU µs per request over its framework's bare route (median of rounds). */
export type AddedCpu = Record<
  string,
  { addedUs: number; ratio: number; rps: number; p999: number; rssMiB: number }
>;

export async function runHttpBench(log: (line?: string) => void): Promise<AddedCpu> {
  const samples = new Map<string, Sample[]>(SCENARIOS.map((s) => [s.name, []]));
  const added = new Map<string, { us: number[]; ratio: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    const bare = new Map<Framework, Sample>();
    for (const s of SCENARIOS) {
      const sample = await measure(s, round);
      if (sample.non2xx > 0) throw new Error(`${s.name}: ${sample.non2xx} non-2xx answers`);
      samples.get(s.name)!.push(sample);
      if (s.mode === 'bare') bare.set(s.framework, sample);
      const base = bare.get(s.framework)!;
      const entry = added.get(s.name) ?? { us: [], ratio: [] };
      entry.us.push(sample.cpuUsPerRequest - base.cpuUsPerRequest);
      entry.ratio.push(sample.rps / base.rps);
      added.set(s.name, entry);
    }
  }
  log(
    `## HTTP (autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per scenario, ${ROUNDS} interleaved rounds, server on core 0, load generator on core 1)`,
  );
  log();
  log(
    '| scenario | req/s (median, min–max) | vs bare | server CPU µs/req | added µs/req (min–max) | p99 / p99.9 ms | RSS MiB | load generator |',
  );
  log('|---|---|---|---|---|---|---|---|');
  const result: AddedCpu = {};
  for (const s of SCENARIOS) {
    const runs = samples.get(s.name)!;
    const extra = added.get(s.name)!;
    const rps = runs.map((r) => r.rps);
    const isBare = s.mode === 'bare';
    result[s.name] = {
      addedUs: median(extra.us),
      ratio: median(extra.ratio),
      rps: median(rps),
      p999: median(runs.map((r) => r.p999)),
      rssMiB: median(runs.map((r) => r.rssMiB)),
    };
    const load = Math.max(...runs.map((r) => r.clientLoad));
    log(
      `| ${s.name} | ${median(rps).toFixed(0)} (${range(rps)}) | ${isBare ? '1.00×' : `${median(extra.ratio).toFixed(2)}×`} | ${median(runs.map((r) => r.cpuUsPerRequest)).toFixed(0)} | ${isBare ? '—' : `${median(extra.us).toFixed(0)} (${range(extra.us)})`} | ${median(runs.map((r) => r.p99)).toFixed(0)} / ${median(runs.map((r) => r.p999)).toFixed(0)} | ${median(runs.map((r) => r.rssMiB)).toFixed(0)} | ${load >= 0.9 ? `saturated (${(load * 100).toFixed(0)} %)` : `${(load * 100).toFixed(0)} %`} |`,
    );
  }
  log();
  log(
    "Server CPU is the server process's own user + system time (all its threads, garbage collection included) over the measured window, divided by the requests it answered; `added` is that minus the same framework's bare route in the same round. The load generator column is its CPU share of its own core: near 100 % it, not the server, set the pace.",
  );
  return result;
}

if (require.main === module)
  runHttpBench((line = '') => console.log(line)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
