/** Forks child.ts workers (TypeScript through test-support/register) and talks to them over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ChildTask } from './child';

/** A running worker and the messages it sent. */
export interface Worker {
  readonly process: ChildProcess;
  /** Resolves with the first message of `type`; rejects when the worker reports an error or dies first. */
  next<M extends { type: string }>(type: string): Promise<M>;
  /** SIGKILLs the worker and waits until it is gone. */
  kill(): Promise<void>;
}

const CHILD = join(__dirname, 'child.ts');

/** Forks one worker for `task`; resolves once it is connected and waiting for "go". */
export async function startWorker(task: ChildTask): Promise<Worker> {
  const child = fork(CHILD, [JSON.stringify(task)], {
    execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: Array<{ type: string }> = [];
  const waiters: Array<() => void> = [];
  let exit: string | undefined;
  child.on('message', (message: { type: string }) => {
    inbox.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  child.on('exit', (code, signal) => {
    exit = `worker exited with ${code ?? signal}`;
    for (const wake of waiters.splice(0)) wake();
  });
  const worker: Worker = {
    process: child,
    async next<M extends { type: string }>(type: string): Promise<M> {
      for (;;) {
        const failure = inbox.find((m) => m.type === 'error') as { error?: string } | undefined;
        if (failure) throw new Error(`worker failed: ${failure.error}`);
        const found = inbox.find((m) => m.type === type);
        if (found) return found as M;
        if (exit) throw new Error(`${exit} before sending "${type}"`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
  await worker.next('ready');
  return worker;
}
