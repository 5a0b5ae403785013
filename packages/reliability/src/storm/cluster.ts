/**
 * @module The storm's app servers: forks N server processes on fixed loopback ports, SIGKILLs and
 * restarts them on request, and counts every exit the test did not cause as an app crash (the
 * crashed server is started again so that the run can finish and report everything it saw).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@webhook-idempotency/test-support/databases';
import { DYING_MARKER, type StormServerConfig } from './config';

const SERVER = join(__dirname, 'server.ts');
const READY_TIMEOUT_MS = 30_000;
const OUTPUT_LINES = 40;
const IN_HANDLER_TIMEOUT_MS = 10_000;

/** An exit of a server process that the test did not ask for. */
export interface AppCrash {
  readonly slot: number;
  readonly pid: number | undefined;
  /** Exit code or signal. */
  readonly exit: string;
  /** Milliseconds since the cluster started. */
  readonly at: number;
  /** The last lines the process wrote (stdout and stderr): the crash's reason. */
  readonly output: string;
}

/** The running servers. */
export interface Cluster {
  /** The port of each slot; a restarted server listens on its slot's port again. */
  readonly ports: readonly number[];
  /** Unexpected exits so far. */
  readonly crashes: readonly AppCrash[];
  /** SIGKILLs the server of `slot` and waits until it is gone (not a crash). */
  kill(slot: number): Promise<void>;
  /**
   * Has the server of `slot` SIGKILL itself inside its next handler, right after the business
   * write and before the commit; resolves with that delivery's id once the process is gone.
   * `armed` is called once the server has been told. `options.where` is passed on in the message,
   * for a process with more than one place to die in (the outbox storm's dispatcher: before or
   * after its send; it prints the marker and what it died in); `options.timeoutMs` (default 10 s)
   * is how long it may take to get there.
   */
  killInHandler(
    slot: number,
    armed?: () => void,
    options?: { readonly where?: string; readonly timeoutMs?: number },
  ): Promise<string>;
  /** Starts the server of `slot` again (no-op when it runs) and waits until it listens. */
  restart(slot: number): Promise<void>;
  /** Waits until every slot has a listening server (after crash restarts). */
  settle(): Promise<void>;
  /** Kills every server. Never throws. */
  stop(): Promise<void>;
}

interface Slot {
  readonly index: number;
  readonly port: number;
  child?: ChildProcess;
  starting?: Promise<void>;
  /** The test is killing this process: its exit is not a crash. */
  expected: boolean;
  output: string[];
}

/**
 * Forks one server per entry of `connections` (slot i connects as `connections[i]`), each on a
 * port of its own; resolves when all listen. `script` is the server's module (the SQL stores'
 * server by default), `base` its settings but the port and connection.
 */
export async function startCluster<
  Config extends { readonly port: number; readonly connection: string } = StormServerConfig,
>(
  base: Omit<Config, 'port' | 'connection'>,
  connections: readonly Config['connection'][],
  script: string = SERVER,
): Promise<Cluster> {
  const count = connections.length;
  const started = Date.now();
  const crashes: AppCrash[] = [];
  const slots: Slot[] = [];
  for (let index = 0; index < count; index++)
    slots.push({ index, port: await freePort(), expected: false, output: [] });
  let stopping = false;

  const spawnSlot = (slot: Slot): Promise<void> => {
    const config = { ...base, connection: connections[slot.index]!, port: slot.port };
    const child = fork(script, [JSON.stringify(config)], {
      execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    slot.child = child;
    slot.expected = false;
    slot.output = [];
    // Whole lines of each stream (a chunk may end mid-line), the last OUTPUT_LINES of both.
    const keeper = () => {
      let partial = '';
      return (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop()!;
        slot.output.push(...lines.filter(Boolean));
        if (slot.output.length > OUTPUT_LINES)
          slot.output.splice(0, slot.output.length - OUTPUT_LINES);
      };
    };
    child.stdout!.on('data', keeper());
    child.stderr!.on('data', keeper());
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`storm server ${slot.index} did not listen within ${READY_TIMEOUT_MS} ms`),
          ),
        READY_TIMEOUT_MS,
      );
      child.on('message', (message: { type?: string }) => {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `storm server ${slot.index} exited with ${code ?? signal} before listening:\n${slot.output.join('\n')}`,
          ),
        );
      });
    });
    child.once('exit', (code, signal) => {
      if (slot.child === child) slot.child = undefined;
      if (slot.expected || stopping) return;
      crashes.push({
        slot: slot.index,
        pid: child.pid,
        exit: String(code ?? signal),
        at: Date.now() - started,
        output: slot.output.join('\n'),
      });
      // Start it again, as a process manager would: the run goes on and counts what it sees.
      void restart(slot.index).catch(() => undefined);
    });
    return ready;
  };

  const restart = (index: number): Promise<void> => {
    const slot = slots[index]!;
    if (stopping) return Promise.resolve();
    if (slot.starting) return slot.starting;
    if (slot.child) return Promise.resolve();
    slot.starting = spawnSlot(slot).finally(() => (slot.starting = undefined));
    return slot.starting;
  };

  const kill = async (index: number): Promise<void> => {
    const slot = slots[index]!;
    if (slot.starting) await slot.starting.catch(() => undefined);
    const child = slot.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    slot.expected = true;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  };

  const killInHandler = async (
    index: number,
    armed?: () => void,
    { where, timeoutMs = IN_HANDLER_TIMEOUT_MS }: { where?: string; timeoutMs?: number } = {},
  ): Promise<string> => {
    const slot = slots[index]!;
    if (slot.starting) await slot.starting;
    const child = slot.child;
    if (!child) throw new Error(`storm server ${index} is not running`);
    slot.expected = true;
    // 'close': the process is gone and its stdout (with the marker) has been read to the end.
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.send(
      where === undefined ? { type: 'die-in-handler' } : { type: 'die-in-handler', where },
    );
    armed?.();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await closed;
    clearTimeout(timer);
    const line = slot.output.find((l) => l.startsWith(`${DYING_MARKER} `));
    if (!line)
      throw new Error(
        `storm server ${index} ran no handler within ${timeoutMs} ms of being told to die in one`,
      );
    return line.slice(DYING_MARKER.length + 1).trim();
  };

  const cluster: Cluster = {
    ports: slots.map((s) => s.port),
    crashes,
    kill,
    killInHandler,
    restart,
    async settle() {
      for (const slot of slots) if (slot.starting) await slot.starting;
    },
    async stop() {
      stopping = true;
      await Promise.all(slots.map((slot) => slot.starting?.catch(() => undefined)));
      await Promise.all(
        slots.map(async (slot) => {
          slot.expected = true;
          const child = slot.child;
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const gone = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await gone;
        }),
      );
    },
  };

  try {
    await Promise.all(slots.map((slot) => restart(slot.index)));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
