/**
 * `pnpm test`'s jest run, in two lanes, with the other Node lines beside the first:
 * - every suite but the serial ones, three files at a time (most wait on databases, child
 *   processes and sockets, not on the two cores), while test-support/run-node-lines.ts runs its
 *   suites on the other Node lines in a process of its own (its output is printed when the lane is
 *   done, so the two never interleave);
 * - then the serial suites (jest.config.ts SERIAL_SUITES: killed servers and databases, cut
 *   connections, memory) one at a time, with nothing beside them, so their own wall-clock bounds
 *   never compete with another file.
 * Every part always runs; the exit code is 1 when any failed. With JEST_JSON, each lane and each
 * Node line writes its own totals file (`.ci/run` adds them up). Extra arguments go to both lanes,
 * and then the Node lines are left out (a run narrowed to some files).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERIAL_SUITES } from '../jest.config';

const root = join(__dirname, '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);

/** Runs one jest lane (its output straight through); resolves with whether it passed. */
function lane(
  name: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<boolean> {
  console.log(`\n== jest, ${name}`);
  const results = process.env.JEST_JSON;
  const child = spawn(process.execPath, [jest, ...args, ...extra], {
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
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The other Node lines, started now; resolves with whether they passed once their output is printed. */
function nodeLines(): () => Promise<boolean> {
  const chunks: Buffer[] = [];
  const child = spawn(
    process.execPath,
    ['-r', 'esbuild-register', join(__dirname, 'run-node-lines.ts')],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<boolean>((resolve) => {
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.stack ?? error}\n`));
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
  return async () => {
    const ok = await done;
    console.log('\n== the other Node lines (test-support/run-node-lines.ts)');
    process.stdout.write(Buffer.concat(chunks));
    return ok;
  };
}

async function main(): Promise<number> {
  const lines = extra.length === 0 ? nodeLines() : async () => true;
  const parallel = await lane('parallel', ['--maxWorkers=3'], { WI_JEST_LANE: 'parallel' });
  const others = await lines();
  const serial = await lane('serial', ['--runInBand', ...SERIAL_SUITES], {});
  return parallel && others && serial ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
