/**
 * @module A Redis server a test may kill: its own `redis-server` on a free loopback port with an
 * append-only file fsynced before every reply (`appendonly yes`, `appendfsync always`), so that a
 * write Redis acknowledged survives a SIGKILL; started again on the same port and folder, it
 * replays the file before it answers PING. For the Redis storm and the store's fault tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './databases';
import { pong, REDIS_SERVER } from './redis';

const READY_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Redis server the test owns. */
export interface KillableRedis {
  readonly url: string;
  readonly port: number;
  /** Its folder: the append-only file and the log (kept across kills). */
  readonly dir: string;
  /** SIGKILLs the server and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder; resolves once it has loaded its data and answers PING. */
  start(): Promise<void>;
  /** SIGKILLs it and removes its folder. Never throws. */
  destroy(): Promise<void>;
}

/** How durable the server is: `always` (the default) fsyncs the append-only file before each reply. */
export interface DurableRedisOptions {
  readonly appendfsync?: 'always' | 'everysec' | 'no';
}

/** Starts a killable `redis-server` in `dir` (created); resolves once it answers PING. */
export async function startDurableRedis(
  dir: string,
  options: DurableRedisOptions = {},
): Promise<KillableRedis> {
  if (!existsSync(REDIS_SERVER))
    throw new Error(
      `Redis server binary missing: ${REDIS_SERVER}. Install it: apt-get install -y --no-install-recommends redis-server (.ci/run does). The Redis proofs never skip Redis.`,
    );
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const log = join(dir, 'redis.log');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    options.appendfsync ?? 'always',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  let child: ChildProcess | undefined;
  let exited: string | undefined;

  const start = async (): Promise<void> => {
    const fd = openSync(log, 'a');
    const started = spawn(REDIS_SERVER, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child = started;
    exited = undefined;
    started.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await pong(port))) {
      if (exited || Date.now() > deadline) {
        started.kill('SIGKILL');
        const tail = existsSync(log)
          ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')
          : '';
        throw new Error(`Redis did not start (${exited ?? 'timeout'}):\n${tail}`);
      }
      await sleep(20);
    }
  };

  const kill = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await gone;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill,
    start,
    async destroy() {
      await kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
