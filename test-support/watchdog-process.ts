/**
 * @module The watchdog of a jest run's servers (started by test-support/watchdog.ts): a process of
 * its own, in a process group of its own, that reads on stdin what the run started (the run's
 * temporary folder, server PIDs) and, when stdin closes without the run saying it cleaned up
 * itself, stops them and removes the folder. stdin closes when the jest process is gone however it
 * ended: Ctrl-C (PostgreSQL and MariaDB ignore the terminal's SIGINT), SIGTERM, SIGKILL, a crash.
 * Linux only, like the servers' set-up: it finds the run's processes in /proc.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the run reports, one JSON object a line. */
type Message = { dir: string } | { pid: number } | { disarm: true };

const dirs = new Set<string>();
const pids = new Set<number>();
let disarmed = false;

/** How long a process gets to stop after its signal before SIGKILL. */
const STOP_MS = 10_000;
/** How long the clean-up keeps looking for processes of the run that start late. */
const SETTLE_MS = 1_000;
/** A process that outlives SIGKILL this long (stuck in the kernel) is left; the folders go anyway. */
const GIVE_UP_MS = 60_000;

const readProc = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
};

/** Whether `pid` still runs (a zombie has exited: nobody may be left to reap it). */
function alive(pid: number): boolean {
  const stat = readProc(pid, 'stat');
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/**
 * The processes of the run: those whose arguments name a path in one of its folders (the database
 * servers' data folders, the servers tests start themselves) or whose environment holds
 * `WI_TMP=<folder>` (jest's workers and everything they started).
 */
function processesOfRun(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || !alive(pid)) continue;
    const args = readProc(pid, 'cmdline')?.split('\0') ?? [];
    const environment = readProc(pid, 'environ')?.split('\0') ?? [];
    for (const dir of dirs) {
      if (
        args.some((arg) => arg === dir || arg.includes(`${dir}/`)) ||
        environment.includes(`WI_TMP=${dir}`)
      ) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

/**
 * Stops a process: a PostgreSQL postmaster with SIGQUIT (immediate shutdown: it stops its
 * backends and frees its shared memory), anything else with SIGKILL (nothing of it is kept).
 */
function signal(pid: number, force: boolean): void {
  const postmaster = readProc(pid, 'comm')?.trim() === 'postgres' && !force;
  try {
    process.kill(pid, postmaster ? 'SIGQUIT' : 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** Stops every process of the run until none is left (late starters included), then removes the folders. */
async function cleanUp(): Promise<void> {
  const deadline = Date.now() + STOP_MS;
  const giveUp = Date.now() + GIVE_UP_MS;
  let quietSince = Date.now();
  const stopping = new Set<number>();
  while (Date.now() - quietSince < SETTLE_MS && Date.now() < giveUp) {
    const running = [...pids, ...processesOfRun()].filter(alive);
    if (running.length > 0) quietSince = Date.now();
    for (const pid of running) {
      if (!stopping.has(pid) || Date.now() > deadline) signal(pid, stopping.has(pid));
      stopping.add(pid);
    }
    await sleep(100);
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

function receive(line: string): void {
  if (!line.trim()) return;
  const message = JSON.parse(line) as Message;
  if ('dir' in message) dirs.add(message.dir);
  else if ('pid' in message) pids.add(message.pid);
  else disarmed = true;
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  lines.forEach(receive);
});
process.stdin.on('close', () => {
  receive(pending);
  if (disarmed) process.exit(0);
  cleanUp().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
