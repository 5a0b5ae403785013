/**
 * @module Starts and stops the throw-away PostgreSQL 15 and MariaDB servers of a test run (no
 * Docker: the machine's own binaries, in a temporary folder, on free loopback ports). Used by
 * jest's global setup and teardown; a missing binary is an error, never a skip.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Watchdog } from './watchdog';

const run = promisify(execFile);

const PG_BIN = process.env.WI_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const MARIADBD = process.env.WI_MARIADBD ?? '/usr/sbin/mariadbd';
const MARIADB_INSTALL_DB = process.env.WI_MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';
const RUNUSER = '/usr/sbin/runuser';
const READY_TIMEOUT_MS = 30_000;

/** What a running set of servers needs to be stopped again. */
export interface RunningDatabases {
  readonly dir: string;
  readonly pgUrl?: string;
  readonly mysqlUrl?: string;
  readonly pgData?: string;
  readonly mariadb?: ChildProcess;
}

const isRoot = () => process.getuid?.() === 0;

function requireBinary(path: string, hint: string): void {
  if (!existsSync(path)) {
    throw new Error(
      `Database server binary missing: ${path}. ${hint} The SQL store tests never skip a database.`,
    );
  }
}

/**
 * Ports handed out below the kernel's range for outgoing connections (32768–60999 on Linux,
 * 49152–65535 on macOS): a server that is killed and started again on its port (a storm's app
 * server, a restarted database) never finds it taken by another process's outgoing connection,
 * whose local port comes from that range.
 */
const PORTS = { first: 20_000, last: 32_000 } as const;

/** Whether a server can listen on `port` of 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port the kernel picks (from its outgoing range), should every try below it be taken. */
function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A free TCP port on 127.0.0.1, picked at random below the outgoing range (see `PORTS`); a tiny
 * race with a program that takes it before its server listens remains.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = PORTS.first + Math.floor(Math.random() * (PORTS.last - PORTS.first));
    if (await canListen(port)) return port;
  }
  return anyPort();
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (PostgreSQL refuses root). */
function pg(binary: string, args: string[]) {
  const path = join(PG_BIN, binary);
  return isRoot() ? run(RUNUSER, ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

async function startPostgres(dir: string): Promise<{ pgUrl: string; pgData: string }> {
  requireBinary(join(PG_BIN, 'postgres'), 'Install PostgreSQL 15 (Debian: postgresql-15).');
  if (isRoot())
    requireBinary(
      RUNUSER,
      'runuser (util-linux) is needed to run PostgreSQL as the postgres user.',
    );
  const pgData = join(dir, 'pg');
  // PostgreSQL runs as `postgres` and writes its data and socket here.
  if (isRoot()) chownSync(dir, uidOf('postgres'), -1);
  await pg('initdb', [
    '-D',
    pgData,
    '--no-sync',
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-instructions',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  await pg('pg_ctl', [
    '-D',
    pgData,
    '-w',
    '-t',
    '30',
    '-l',
    join(dir, 'pg.log'),
    '-o',
    options,
    'start',
  ]);
  return { pgUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, pgData };
}

function uidOf(user: string): number {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`user ${user} not found: PostgreSQL needs it to run as non-root`);
  return Number(line.split(':')[2]);
}

async function startMariadb(
  dir: string,
  watchdog: Watchdog | undefined,
): Promise<{ mysqlUrl: string; mariadb: ChildProcess }> {
  const hint =
    'Install MariaDB: apt-get install -y --no-install-recommends mariadb-server (.ci/run does).';
  requireBinary(MARIADBD, hint);
  requireBinary(MARIADB_INSTALL_DB, hint);
  const data = join(dir, 'mariadb');
  // A temporary folder of its own: a MariaDB server starting clears the `#sql*` files of its
  // tmpdir, which in a shared /tmp are another instance's install, mid-way (several runs at once).
  const mariadbTmp = join(dir, 'mariadb-tmp');
  mkdirSync(mariadbTmp, { recursive: true });
  const user = isRoot() ? ['--user=root'] : [];
  await run(MARIADB_INSTALL_DB, [
    '--no-defaults',
    `--datadir=${data}`,
    `--tmpdir=${mariadbTmp}`,
    ...user,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    '--skip-name-resolve',
  ]);
  const port = await freePort();
  const log = openSync(join(dir, 'mariadb.log'), 'a');
  const mariadb = spawn(
    MARIADBD,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--tmpdir=${mariadbTmp}`,
      `--socket=${join(dir, 'mariadb.sock')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      ...user,
      '--skip-log-bin',
      '--skip-name-resolve',
      '--innodb-flush-log-at-trx-commit=0',
      '--innodb-doublewrite=0',
      '--innodb-buffer-pool-size=64M',
      '--max-connections=300',
      '--sql-mode=STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION',
    ],
    { stdio: ['ignore', log, log] },
  );
  if (mariadb.pid !== undefined) watchdog?.watchPid(mariadb.pid);
  let exited: string | undefined;
  mariadb.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await canConnect(port))) {
    if (exited || Date.now() > deadline) {
      mariadb.kill('SIGKILL');
      const tail = readFileSync(join(dir, 'mariadb.log'), 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`MariaDB did not start (${exited ?? 'timeout'}):\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { mysqlUrl: `mysql://root@127.0.0.1:${port}/`, mariadb };
}

/**
 * Starts both servers in one temporary folder; stops whatever started when the other fails.
 * `watchdog` (test-support/watchdog.ts) learns the folder and the servers as they start, so they
 * are stopped and the folder removed should this process end without calling
 * {@link stopDatabases}.
 */
export async function startDatabases(watchdog?: Watchdog): Promise<RunningDatabases> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-db-'));
  watchdog?.watchDir(dir);
  const started: { -readonly [K in keyof RunningDatabases]: RunningDatabases[K] } = { dir };
  try {
    const [pgResult, mysqlResult] = await Promise.allSettled([
      startPostgres(dir),
      startMariadb(dir, watchdog),
    ]);
    if (pgResult.status === 'fulfilled') Object.assign(started, pgResult.value);
    if (mysqlResult.status === 'fulfilled') Object.assign(started, mysqlResult.value);
    if (pgResult.status === 'rejected') throw pgResult.reason;
    if (mysqlResult.status === 'rejected') throw mysqlResult.reason;
    return started;
  } catch (error) {
    await stopDatabases(started);
    throw error;
  }
}

/** Stops the servers and removes their folder. Never throws: it runs in teardown. */
export async function stopDatabases(running: RunningDatabases): Promise<void> {
  const stops: Promise<unknown>[] = [];
  if (running.pgData) {
    stops.push(
      pg('pg_ctl', ['-D', running.pgData, '-m', 'immediate', '-w', '-t', '20', 'stop']).catch(
        () => undefined,
      ),
    );
  }
  const { mariadb } = running;
  if (mariadb && mariadb.exitCode === null && mariadb.signalCode === null) {
    stops.push(
      new Promise<void>((resolve) => {
        const force = setTimeout(() => mariadb.kill('SIGKILL'), 10_000);
        mariadb.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        mariadb.kill('SIGTERM');
      }),
    );
  }
  await Promise.all(stops);
  rmSync(running.dir, { recursive: true, force: true });
}
