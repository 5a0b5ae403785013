/**
 * @module HTTP cost: autocannon against the same Express route bare and guarded (in-memory and
 * SQLite stores, first deliveries and replays), all in one run. Reports throughput and the
 * server's own CPU time per request, and the difference to the bare route.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { ServerMode } from './server';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 10;

interface Scenario {
  name: string;
  mode: ServerMode;
  /** `unique`: every request a new event id (first deliveries); `same`: one id (replays). */
  ids: 'unique' | 'same' | 'none';
}

const SCENARIOS: Scenario[] = [
  { name: 'bare route (baseline)', mode: 'bare', ids: 'none' },
  { name: 'in-memory store, first deliveries', mode: 'memory', ids: 'unique' },
  { name: 'in-memory store, replays', mode: 'memory', ids: 'same' },
  { name: 'SQLite store, first deliveries', mode: 'sqlite', ids: 'unique' },
  { name: 'SQLite store, replays', mode: 'sqlite', ids: 'same' },
];

function ask<T>(child: ChildProcess, message: string, field: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (reply: Record<string, T>) => {
      if (field in reply) {
        child.off('message', onMessage);
        resolve(reply[field]!);
      }
    };
    child.on('message', onMessage);
    if (message) child.send(message);
  });
}

async function measure(
  scenario: Scenario,
): Promise<{ rps: number; cpuUsPerRequest: number; non2xx: number }> {
  const child = fork(join(__dirname, 'server.ts'), [scenario.mode], {
    execArgv: ['-r', 'esbuild-register'],
  });
  const port = await ask<number>(child, '', 'port');
  let counter = 0;
  const run = (seconds: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}/hook`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      body: '{"type":"payment.succeeded","data":{"amount":500000}}',
      requests: [
        {
          setupRequest(request) {
            const id = scenario.ids === 'unique' ? `evt_${counter++}` : 'evt_same';
            return scenario.ids === 'none'
              ? request
              : { ...request, headers: { ...request.headers, 'x-event-id': id } };
          },
        },
      ],
    });
  await run(1); // warm-up
  const before = await ask<NodeJS.CpuUsage>(child, 'cpu', 'cpu');
  const result = await run(DURATION_S);
  const after = await ask<NodeJS.CpuUsage>(child, 'cpu', 'cpu');
  child.send('stop');
  const cpuUs = after.user - before.user + (after.system - before.system);
  return {
    rps: result.requests.average,
    cpuUsPerRequest: cpuUs / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
  };
}

export async function runHttpBench(log: (line?: string) => void): Promise<Record<string, number>> {
  log(`## HTTP (Express 5, autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per scenario)`);
  log();
  log('| scenario | req/s | vs bare | server CPU µs/request | added CPU µs/request |');
  log('|---|---|---|---|---|');
  let base: { rps: number; cpuUsPerRequest: number } | undefined;
  const added: Record<string, number> = {};
  for (const scenario of SCENARIOS) {
    const r = await measure(scenario);
    base ??= r;
    if (r.non2xx > 0) throw new Error(`${scenario.name}: ${r.non2xx} non-2xx answers`);
    added[scenario.name] = r.cpuUsPerRequest - base.cpuUsPerRequest;
    const extra = r === base ? '—' : added[scenario.name]!.toFixed(0);
    log(
      `| ${scenario.name} | ${r.rps.toFixed(0)} | ${(r.rps / base.rps).toFixed(2)}× | ${r.cpuUsPerRequest.toFixed(0)} | ${extra} |`,
    );
  }
  log();
  log(
    "CPU is the server process's own user + system time (all its threads, garbage collection included) over the measured window, divided by the requests it answered.",
  );
  return added;
}
