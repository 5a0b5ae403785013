/**
 * `pnpm test`'s jest run, in two lanes: every suite but the serial ones two files at a time (most
 * wait on databases, child processes and sockets, not on the two cores), then the serial suites
 * (jest.config.ts SERIAL_SUITES: killed servers and databases, cut connections, memory) one at a
 * time, so their own wall-clock bounds never compete with another file. Both lanes always run;
 * the exit code is 1 when either failed. With JEST_JSON, each lane writes its own totals file
 * (`.ci/run` adds them up). Extra arguments go to both lanes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SERIAL_SUITES } from '../jest.config';

const root = join(__dirname, '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);

function lane(name: string, args: readonly string[], env: Record<string, string>): boolean {
  console.log(`\n== jest, ${name}`);
  const results = process.env.JEST_JSON;
  const run = spawnSync(process.execPath, [jest, ...args, ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...env,
      ...(results && name !== 'parallel'
        ? { JEST_JSON: results.replace(/\.json$/, `-${name}.json`) }
        : {}),
    },
  });
  return run.status === 0;
}

const parallel = lane('parallel', ['--maxWorkers=2'], { WI_JEST_LANE: 'parallel' });
const serial = lane('serial', ['--runInBand', ...SERIAL_SUITES], {});
process.exit(parallel && serial ? 0 : 1);
