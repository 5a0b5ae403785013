/**
 * @module Starts and stops the throw-away Redis server of a test run (the machine's own
 * `redis-server`, nothing persisted, on a free loopback port), for the BullMQ bridge tests. Used
 * by jest's global setup and teardown next to the database servers; a missing binary is an
 * error, never a skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './databases';
import type { Watchdog } from './watchdog';

export const REDIS_SERVER = process.env.WI_REDIS_SERVER ?? '/usr/bin/redis-server';
const READY_TIMEOUT_MS = 15_000;

/** A running Redis server: its URL and process. */
export interface RunningRedis {
  readonly url: string;
  readonly process: ChildProcess;
}

/** Resolves `true` when a Redis server on `port` answers PING with PONG (not while it loads its data). */
export function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

/**
 * Starts `redis-server` on a free 127.0.0.1 port, without persistence; resolves once it answers
 * PING. `watchdog` learns its PID (it is stopped should this process end without {@link stopRedis}).
 */
export async function startRedis(watchdog?: Watchdog): Promise<RunningRedis> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(
      `Redis server binary missing: ${REDIS_SERVER}. Install it: apt-get install -y --no-install-recommends redis-server (.ci/run does). The BullMQ tests never skip Redis.`,
    );
  }
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const redis = spawn(REDIS_SERVER, [...args, '--daemonize', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (redis.pid !== undefined) watchdog?.watchPid(redis.pid);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  redis.stdout?.on('data', keep);
  redis.stderr?.on('data', keep);
  let exited: string | undefined;
  redis.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pong(port))) {
    if (exited || Date.now() > deadline) {
      redis.kill('SIGKILL');
      throw new Error(`Redis did not start (${exited ?? 'timeout'}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Only its failures are worth keeping; stop reading so the pipes never fill.
  redis.stdout?.removeListener('data', keep).resume();
  redis.stderr?.removeListener('data', keep).resume();
  return { url: `redis://127.0.0.1:${port}`, process: redis };
}

/** Stops the server by its PID (SIGTERM, SIGKILL after 5 s) and waits for it. Never throws. */
export async function stopRedis(running: RunningRedis): Promise<void> {
  const redis = running.process;
  if (redis.exitCode !== null || redis.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => redis.kill('SIGKILL'), 5000);
    redis.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    redis.kill('SIGTERM');
  });
}
