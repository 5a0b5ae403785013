/** @module Runs every benchmark and prints (and writes to docs/benchmarks.md) a report with ratios. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGuardBench } from './guard.bench';
import { runHttpBench } from './http.bench';

async function main(): Promise<void> {
  const lines: string[] = [];
  const log = (line = '') => {
    console.log(line);
    lines.push(line);
  };
  log('# Benchmarks');
  log();
  log(`Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch}, Node ${process.version}, by \`pnpm bench\`.`);
  log('Every figure is compared with a baseline measured in the same run.');
  log();
  log('## The guard in-process (in-memory store)');
  log();
  const guard = await runGuardBench();
  const base = guard[0]!.nsPerOp;
  log('| scenario | µs per call | added over baseline |');
  log('|---|---|---|');
  for (const r of guard) log(`| ${r.name} | ${(r.nsPerOp / 1000).toFixed(2)} | ${r === guard[0] ? '—' : `${((r.nsPerOp - base) / 1000).toFixed(2)} µs`} |`);
  log();
  await runHttpBench(log);

  if (process.env.BENCH_WRITE_DOCS !== '0') writeFileSync(join(__dirname, '../../docs/benchmarks.md'), `${lines.join('\n')}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
