/**
 * `pnpm test`'s jest run, in two stages:
 * - every suite but the serial ones, three files at a time (most wait on databases, child
 *   processes and sockets, not on the two cores), while beside it test-support/run-node-lines.ts
 *   runs its suites on the other Node lines, and the type check and the lint (`pnpm run
 *   typecheck`, `pnpm run lint`) run, each in a process of its own at a lower priority (they fill
 *   the cores the jest files leave idle while they wait);
 * - then the serial suites (jest.config.ts SERIAL_GROUPS: killed servers and databases, cut
 *   connections, memory), one file at a time in each of three queues side by side (the guard's
 *   storms and the memory test; the outbox's storm and the inbox's proofs, with the pg-boss
 *   bridge's; the fault tests that mostly wait on timers, with the BullMQ bridge's), so a proof's
 *   wall-clock bounds never compete with another file of its kind; each queue starts the shared
 *   servers its files use (jest.config.ts SERIAL_SERVERS). The first queue's output goes straight
 *   through, the others' once they are done.
 * What runs beside a lane prints its output once the lane is done, so outputs never interleave.
 * Every part always runs; the exit code is 1 when any failed. With JEST_JSON, each lane and each
 * Node line writes its own totals file (`.ci/run` adds them up). Extra arguments go to the jest
 * lanes, and then the Node lines, the type check and the lint are left out (a run narrowed to
 * some files).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERIAL_GROUPS, SERIAL_SERVERS } from '../jest.config';

const root = join(__dirname, '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);

/** A child process started now: `finish()` resolves with whether it passed, its kept output printed first. */
interface Started {
  finish(): Promise<boolean>;
}

/**
 * Starts `args` under this Node. `heading` is printed before its output: at once when the output
 * goes straight through, or with the output when it is kept (`keep`) until `finish()`.
 */
function start(
  heading: string,
  args: readonly string[],
  env: Record<string, string>,
  keep: boolean,
  command = process.execPath,
): Started {
  if (!keep) console.log(`\n== ${heading}`);
  const chunks: Buffer[] = [];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<boolean>((resolve) => {
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.stack ?? error}\n`));
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
  return {
    async finish() {
      const ok = await done;
      if (keep) {
        console.log(`\n== ${heading}`);
        process.stdout.write(Buffer.concat(chunks));
      }
      return ok;
    },
  };
}

/** One jest lane; `name` also names its totals file (JEST_JSON, the parallel lane's unchanged). */
function lane(
  name: string,
  args: readonly string[],
  keep: boolean,
  env: Record<string, string> = {},
) {
  const results = process.env.JEST_JSON;
  return start(
    `jest, ${name}`,
    [jest, ...args, ...extra],
    {
      ...env,
      ...(results && name !== 'parallel'
        ? { JEST_JSON: results.replace(/\.json$/, `-${name}.json`) }
        : {}),
    },
    keep,
  );
}

/**
 * `pnpm run <script>` beside the first stage, its output kept, at a lower CPU priority (`nice`):
 * it takes the cycles the jest files leave idle and never slows them. Through the pnpm that runs
 * this (`npm_execpath`: a script run under Node, or pnpm's own executable), else the `pnpm` on
 * the PATH.
 */
function script(name: string): Started {
  const pnpm = process.env.npm_execpath;
  const command = pnpm && /\.[cm]?js$/.test(pnpm) ? [process.execPath, pnpm] : [pnpm || 'pnpm'];
  return start(`pnpm run ${name}`, ['-n', '10', ...command, 'run', name], {}, true, 'nice');
}

async function main(): Promise<number> {
  const checks = extra.length === 0 ? [script('typecheck'), script('lint')] : [];
  const parallel = lane('parallel', ['--maxWorkers=3'], false, { WI_JEST_LANE: 'parallel' });
  const lines =
    extra.length === 0
      ? start(
          'the other Node lines (test-support/run-node-lines.ts)',
          ['-r', join(__dirname, 'register.cjs'), join(__dirname, 'run-node-lines.ts')],
          {},
          true,
        )
      : undefined;
  const first = [
    await parallel.finish(),
    (await lines?.finish()) ?? true,
    ...(await Promise.all(checks.map((check) => check.finish()))),
  ];
  const queues = Object.entries(SERIAL_GROUPS).map(([name, suites], index) => {
    const servers = SERIAL_SERVERS[name as keyof typeof SERIAL_GROUPS];
    return lane(
      `serial-${name}`,
      ['--runInBand', ...suites],
      index > 0,
      // A run narrowed to some files (extra) may match any file in every lane: all the servers.
      servers === undefined || extra.length > 0 ? {} : { WI_JEST_SERVERS: servers },
    );
  });
  const second: boolean[] = [];
  for (const queue of queues) second.push(await queue.finish());
  return [...first, ...second].every(Boolean) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
