/**
 * @module The servers of a jest run die with it. Jest's global setup starts PostgreSQL, MariaDB and
 * Redis in the jest process, and global teardown stops them; a run that ends any other way
 * (Ctrl-C, SIGTERM, SIGKILL, a crash) never reaches teardown, and PostgreSQL (which pg_ctl puts
 * in a session of its own) and MariaDB (which ignores SIGINT) would keep running, with hundreds of
 * megabytes in the run's temporary folder. {@link startWatchdog} starts a process outside the
 * run's process group (test-support/watchdog-process.ts) that notices when the jest process is
 * gone (its stdin closes) and stops what the run reported, every process of the run's folder, and
 * removes the folder, unless the run disarmed it after stopping them itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

/** The watchdog of this process's servers. */
export interface Watchdog {
  /** The watchdog's own process. */
  readonly pid: number;
  /** The run's temporary folder: removed, and every process naming it in its arguments or as `WI_TMP` stopped. */
  watchDir(dir: string): void;
  /** A server process that names no such folder (Redis). */
  watchPid(pid: number): void;
  /** Teardown stopped everything: the watchdog exits without doing anything. */
  disarm(): void;
}

/**
 * Starts the watchdog of this process. It runs detached (a process group of its own, so the
 * terminal's Ctrl-C does not reach it) and keeps nothing of this process alive.
 */
export function startWatchdog(): Watchdog {
  const child = spawn(
    process.execPath,
    ['-r', join(__dirname, 'register.cjs'), join(__dirname, 'watchdog-process.ts')],
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
  );
  child.unref();
  const stdin = child.stdin as Writable & { unref?: () => void };
  // The pipe must not keep jest waiting: jest exits when its work is done, and the pipe closes.
  stdin.unref?.();
  // A write after the watchdog died (it never does before jest) must not crash jest.
  stdin.on('error', () => undefined);
  const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
  if (child.pid === undefined) throw new Error('the watchdog of the test servers did not start');
  return {
    pid: child.pid,
    watchDir: (dir) => send({ dir }),
    watchPid: (pid) => send({ pid }),
    disarm: () => {
      stdin.end(`${JSON.stringify({ disarm: true })}\n`);
    },
  };
}
