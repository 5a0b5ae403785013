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
  log(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch}, Node ${process.version}, by \`pnpm bench\`.`,
  );
  log('Every figure is compared with a baseline measured in the same run.');
  log();
  log('## The guard in-process (in-memory store)');
  log();
  const guard = await runGuardBench();
  const base = guard[0]!.nsPerOp;
  log('| scenario | µs per call | added over baseline |');
  log('|---|---|---|');
  for (const r of guard)
    log(
      `| ${r.name} | ${(r.nsPerOp / 1000).toFixed(2)} | ${r === guard[0] ? '—' : `${((r.nsPerOp - base) / 1000).toFixed(2)} µs`} |`,
    );
  log();
  const added = await runHttpBench(log);
  log();
  log('## Against the budget (DESIGN.md §9)');
  log();
  log(
    'Budget: at most 30 µs of added server CPU per request with the in-memory store, first delivery or replay, and no cost that grows with the number of receipts.',
  );
  log();
  for (const name of ['in-memory store, first deliveries', 'in-memory store, replays']) {
    const us = added[name]!;
    log(`- ${name}: ${us.toFixed(0)} µs added — ${us <= 30 ? 'within budget' : 'over budget'}`);
  }
  const growth = guard[4]!.nsPerOp - guard[2]!.nsPerOp;
  log(
    `- replay with 500k receipts stored vs few: ${(growth / 1000).toFixed(2)} µs apart in-process (a Map lookup: no growth beyond cache effects)`,
  );

  if (process.env.BENCH_WRITE_DOCS !== '0')
    writeFileSync(join(__dirname, '../../docs/benchmarks.md'), `${lines.join('\n')}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
