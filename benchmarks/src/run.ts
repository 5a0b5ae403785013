/** @module Runs every benchmark and prints (and writes to docs/benchmarks.md) a report with ratios. */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { bundle, pinned } from './bundle';
import type { GuardBenchResult } from './guard.bench';
import { runHttpBench } from './http.bench';
import { runInstructionCounts } from './instructions';

async function main(): Promise<void> {
  const lines: string[] = [];
  const log = (line = '') => {
    console.log(line);
    lines.push(line);
  };
  log('# Benchmarks');
  log();
  log(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch} (${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB), Node ${process.version}, by \`pnpm bench\`.`,
  );
  log('Every figure is compared with a baseline measured in the same run.');
  log();
  log('## The guard in-process (in-memory store)');
  log();
  // In its own process, bundled ahead of time and pinned to the core the servers use.
  const [command, args] = pinned(0, [bundle('guard.bench')]);
  const guard = JSON.parse(execFileSync(command, args, { encoding: 'utf8' })) as GuardBenchResult[];
  const base = guard[0]!.nsPerOp;
  log('| scenario | µs per call | added over baseline |');
  log('|---|---|---|');
  for (const r of guard)
    log(
      `| ${r.name} | ${(r.nsPerOp / 1000).toFixed(2)} | ${r === guard[0] ? '—' : `${((r.nsPerOp - base) / 1000).toFixed(2)} µs`} |`,
    );
  log();
  const http = await runHttpBench(log);
  log();
  log('## Against the goals (issue 10; DESIGN.md §9)');
  log();
  log('| path | goal | measured (median) | met |');
  log('|---|---|---|---|');
  const goals: Array<
    [string, string, (r: { addedUs: number; ratio: number }) => boolean, 'us' | 'ratio']
  > = [
    ['express, memory, first', '≤ 20 µs added', (r) => r.addedUs <= 20, 'us'],
    ['express, memory, first', '≥ 0.92× bare req/s', (r) => r.ratio >= 0.92, 'ratio'],
    ['express, memory, replay', '≤ 10 µs added', (r) => r.addedUs <= 10, 'us'],
    ['fastify, memory, first', '≤ 10 µs added', (r) => r.addedUs <= 10, 'us'],
    ['fastify, memory, replay', '≤ 10 µs added', (r) => r.addedUs <= 10, 'us'],
    ['koa, memory, first', '≤ 10 µs added', (r) => r.addedUs <= 10, 'us'],
    ['koa, memory, replay', '≤ 10 µs added', (r) => r.addedUs <= 10, 'us'],
    ['express, sqlite, first', '≥ 0.6× bare req/s', (r) => r.ratio >= 0.6, 'ratio'],
    ['express, sqlite, replay', '≥ 0.9× bare req/s', (r) => r.ratio >= 0.9, 'ratio'],
  ];
  for (const [name, goal, met, unit] of goals) {
    const r = http[name];
    if (!r) continue;
    const value = unit === 'us' ? `${r.addedUs.toFixed(0)} µs` : `${r.ratio.toFixed(2)}×`;
    log(`| ${name} | ${goal} | ${value} | ${met(r) ? 'yes' : '**no**'} |`);
  }
  for (const path of ['first', 'replay']) {
    const ours = http[`express, memory, ${path}`];
    const peer = http[`express, @node-idempotency (memory), ${path}`];
    if (!ours || !peer) continue;
    log(
      `| express, memory, ${path} | ahead of @node-idempotency | ours ${ours.addedUs.toFixed(0)} µs, peer ${peer.addedUs.toFixed(0)} µs | ${ours.addedUs < peer.addedUs ? 'yes' : '**no**'} |`,
    );
  }
  const growth = guard[4]!.nsPerOp - guard[2]!.nsPerOp;
  log();
  log(
    `In-process, a replay with 500k receipts stored costs ${(growth / 1000).toFixed(2)} µs more than with few (a Map lookup: no growth beyond cache effects).`,
  );

  // The stable signal: instructions per request do not move with the machine's load.
  if (process.env.BENCH_INSTRUCTIONS !== '0') {
    log();
    runInstructionCounts(log);
  }

  if (process.env.BENCH_WRITE_DOCS !== '0')
    writeFileSync(join(__dirname, '../../docs/benchmarks.md'), `${lines.join('\n')}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
