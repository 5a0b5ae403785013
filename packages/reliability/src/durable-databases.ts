/**
 * @module Database servers a test may kill: PostgreSQL 15 and MariaDB with durable settings, each
 * on its own data folder and port, that can be SIGKILLed and started again on the same port and data.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  closeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { freePort } from '@webhook-idempotency/test-support/databases';

const run = promisify(execFile);

const PG_BIN = process.env.WI_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const MARIADBD = process.env.WI_MARIADBD ?? '/usr/sbin/mariadbd';
const MARIADB_INSTALL_DB = process.env.WI_MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';
const RUNUSER = '/usr/sbin/runuser';
const READY_TIMEOUT_MS = 60_000;

/** Which server a {@link KillableDatabase} runs. */
export type KillableKind = 'postgres' | 'mysql';

/** A database server the test owns: it can be killed with SIGKILL and started again where it was. */
export interface KillableDatabase {
  readonly kind: KillableKind;
  /** Connection URL of the server's default database (`postgres` / none for MariaDB). */
  readonly url: string;
  readonly port: number;
  /** The server's data folder (kept across kills). */
  readonly dataDir: string;
  /** SIGKILLs the server and every process it started (PostgreSQL's backends), and waits until they are gone. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data folder; resolves once it answers `SELECT 1` (after crash recovery). */
  start(): Promise<void>;
  /** Stops the server (SIGKILL: nothing of it is kept) and removes its folder. Never throws. */
  destroy(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function uidOf(user: string): number {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`user ${user} not found: PostgreSQL needs it to run as non-root`);
  return Number(line.split(':')[2]);
}

function requireBinary(path: string): void {
  if (!existsSync(path))
    throw new Error(`Database server binary missing: ${path}. The storm never skips a database.`);
}

/**
 * SIGKILLs `pid`; one that has exited since it was listed (a backend whose client just
 * disconnected) is what the kill wanted anyway.
 */
function killIfThere(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Pids whose parent is `parent` (read from /proc). */
function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    // A zombie still answers signal 0: look at its state too.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitGone(pids: readonly number[], what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (pids.some(alive)) {
    if (Date.now() > deadline)
      throw new Error(`${what} did not die after SIGKILL: ${pids.filter(alive).join(', ')}`);
    await sleep(20);
  }
}

async function waitReady(
  probe: () => Promise<void>,
  exited: () => string | undefined,
  log: string,
  what: string,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      last = error;
    }
    const gone = exited();
    if (gone || Date.now() > deadline) {
      const tail = existsSync(log)
        ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')
        : '';
      throw new Error(
        `${what} did not become ready (${gone ?? `timeout; last: ${String(last)}`}):\n${tail}`,
      );
    }
    await sleep(50);
  }
}

function spawnLogged(
  command: string,
  args: string[],
  log: string,
): { child: ChildProcess; exited: () => string | undefined } {
  const fd = openSync(log, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
  child.once('error', (error) => (exit = `failed to start: ${error.message}`));
  return { child, exited: () => exit };
}

/**
 * A PostgreSQL 15 server in `dir/pg` with the settings under which a committed transaction
 * survives a crash: `fsync`, `synchronous_commit` and `full_page_writes` on. Run as the `postgres`
 * user through runuser when we are root. `options.settings` adds `name=value` server settings (a benchmark's
 * `shared_preload_libraries=pg_stat_statements`).
 */
export async function startDurablePostgres(
  dir: string,
  options: { readonly settings?: readonly string[] } = {},
): Promise<KillableDatabase> {
  requireBinary(join(PG_BIN, 'postgres'));
  mkdirSync(dir, { recursive: true });
  const asPostgres = (binary: string, args: string[]): [string, string[]] =>
    isRoot()
      ? [RUNUSER, ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]]
      : [join(PG_BIN, binary), args];
  if (isRoot()) chownSync(dir, uidOf('postgres'), -1);
  const dataDir = join(dir, 'pg');
  await run(
    ...asPostgres('initdb', [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-instructions',
    ]),
  );
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const log = join(dir, 'pg.log');
  const settings = [
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${dir}`,
    'fsync=on',
    'synchronous_commit=on',
    'full_page_writes=on',
    'max_connections=200',
    ...(options.settings ?? []),
  ];
  let server: ReturnType<typeof spawnLogged> | undefined;

  const postmasterPid = (): number | undefined => {
    try {
      const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };

  const database: KillableDatabase = {
    kind: 'postgres',
    url,
    port,
    dataDir,
    async start() {
      server = spawnLogged(
        ...asPostgres('postgres', [
          '-D',
          dataDir,
          '-p',
          String(port),
          ...settings.flatMap((s) => ['-c', s]),
        ]),
        log,
      );
      const current = server;
      await waitReady(
        async () => {
          const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
          client.on('error', () => undefined);
          try {
            await client.connect();
            await client.query('SELECT 1');
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        current.exited,
        log,
        'PostgreSQL',
      );
    },
    async kill() {
      const pid = postmasterPid();
      if (pid === undefined) throw new Error('PostgreSQL is not running: nothing to kill');
      // The postmaster and every backend at once, as a crash of the machine's database would.
      const victims = [pid, ...childrenOf(pid)];
      for (const victim of victims) killIfThere(victim);
      // A backend forked between the listing and the kill: its postmaster is gone, kill it too.
      const late = childrenOf(pid);
      for (const victim of late) killIfThere(victim);
      await waitGone([...victims, ...late], 'PostgreSQL');
      if (server) await waitGone(server.child.pid ? [server.child.pid] : [], 'runuser');
    },
    async destroy() {
      try {
        const pid = postmasterPid();
        if (pid !== undefined) await database.kill();
      } catch {
        // teardown: nothing to report
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await database.start();
  return database;
}

/** A MariaDB server in `dir/mariadb` with `innodb_flush_log_at_trx_commit=1` and the doublewrite buffer on. */
export async function startDurableMariadb(dir: string): Promise<KillableDatabase> {
  requireBinary(MARIADBD);
  requireBinary(MARIADB_INSTALL_DB);
  mkdirSync(dir, { recursive: true });
  const dataDir = join(dir, 'mariadb');
  // Its own tmpdir: a MariaDB server starting clears the `#sql*` files of a shared /tmp.
  const mariadbTmp = join(dir, 'mariadb-tmp');
  mkdirSync(mariadbTmp, { recursive: true });
  const user = isRoot() ? ['--user=root'] : [];
  await run(MARIADB_INSTALL_DB, [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--tmpdir=${mariadbTmp}`,
    ...user,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    '--skip-name-resolve',
  ]);
  const port = await freePort();
  const url = `mysql://root@127.0.0.1:${port}/`;
  const log = join(dir, 'mariadb.log');
  const args = [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--tmpdir=${mariadbTmp}`,
    `--socket=${join(dir, 'mariadb.sock')}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    ...user,
    '--skip-log-bin',
    '--skip-name-resolve',
    '--innodb-flush-log-at-trx-commit=1',
    '--innodb-doublewrite=1',
    '--innodb-buffer-pool-size=64M',
    '--max-connections=200',
    '--sql-mode=STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION',
  ];
  let server: ReturnType<typeof spawnLogged> | undefined;
  const running = () => server !== undefined && server.exited() === undefined;

  const database: KillableDatabase = {
    kind: 'mysql',
    url,
    port,
    dataDir,
    async start() {
      server = spawnLogged(MARIADBD, args, log);
      await waitReady(
        async () => {
          const connection = await mysql.createConnection({ uri: url, connectTimeout: 2_000 });
          connection.on('error', () => undefined);
          try {
            await connection.query('SELECT 1');
          } finally {
            await connection.end().catch(() => undefined);
          }
        },
        server.exited,
        log,
        'MariaDB',
      );
    },
    async kill() {
      const child = server?.child;
      if (!child?.pid || !running()) throw new Error('MariaDB is not running: nothing to kill');
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
    async destroy() {
      try {
        if (running()) await database.kill();
      } catch {
        // teardown: nothing to report
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await database.start();
  return database;
}
