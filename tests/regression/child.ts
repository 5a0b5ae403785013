/**
 * @module A child process a test starts and watches: its output as it comes, a wait for a line of
 * it, and its exit. Every child a test file starts is killed when the file ends ({@link killAll}),
 * whatever the test's outcome.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** A started child process. */
export interface Child {
  readonly pid: number;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves once its output matches `pattern`; rejects if it exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves with its exit code (or the signal that ended it). */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Whether it has exited. */
  done(): boolean;
  /** Writes to its stdin (started with `stdin: 'pipe'`). */
  write(text: string): void;
}

const started = new Set<Child & { kill(): void }>();

/** Starts `command` with `args`, its output kept; its stdin is closed unless `stdin: 'pipe'`. */
export function start(
  command: string,
  args: readonly string[],
  { stdin = 'ignore', ...options }: SpawnOptions & { stdin?: 'pipe' | 'ignore' } = {},
): Child {
  const child = spawn(command, args, { ...options, stdio: [stdin, 'pipe', 'pipe'] });
  let text = '';
  let finished = false;
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      finished = true;
      resolve(code ?? signal ?? -1);
    });
  });
  if (child.pid === undefined) throw new Error(`${command} did not start`);
  const handle = {
    pid: child.pid,
    output: () => text,
    exited,
    done: () => finished,
    async waitFor(pattern: RegExp) {
      while (!pattern.test(text)) {
        if (finished) throw new Error(`exited before printing ${pattern}:\n${text}`);
        await sleep(50);
      }
    },
    write(text: string) {
      child.stdin?.write(text);
    },
    kill() {
      if (!finished) child.kill('SIGKILL');
    },
  };
  started.add(handle);
  return handle;
}

/** Kills every child this file started that still runs (for `afterEach`/`afterAll`). */
export function killAll(): void {
  for (const child of started) child.kill();
  started.clear();
}
