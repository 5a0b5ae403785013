/**
 * A jest run stopped before its global teardown (Ctrl-C during `pnpm test`, a SIGTERM or SIGKILL
 * from a CI timeout) must not leave its PostgreSQL, MariaDB, Redis, dynalite and DynamoDB Local
 * running nor their folders in /tmp: a watchdog outside the run's process group stops them once the
 * jest process is gone.
 * The real global setup runs in a child process standing in for jest (it starts the servers, then
 * waits as jest does while tests run); the test stops that process and looks at what is left.
 * Every server runs under SIGKILL (nothing of the run's own survives it) and a normal teardown; Ctrl-C
 * and SIGTERM, which differ only in how the run ends, run with the databases and Redis
 * (`WI_JEST_SERVERS`), which leaves out the one that is slow to start (DynamoDB Local, a JVM).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverKinds } from '@webhook-idempotency/test-support/global-setup';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { type Child, killAll, start } from './child';

/** What the stand-in for jest started, as it reports it. */
interface Started {
  readonly dir: string;
  /** The DynamoDB-compatible servers' folder (beside the databases' one), when they were started. */
  readonly dynamoDir: string | null;
  readonly watchdog: number;
  /** PostgreSQL's postmaster, MariaDB's server, Redis, dynalite and DynamoDB Local, by name. */
  readonly servers: Record<string, number>;
}

const RUNNER = `
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const setup = require(${JSON.stringify(join(repoRoot, 'test-support', 'global-setup.ts'))}).default;
const teardown = require(${JSON.stringify(join(repoRoot, 'test-support', 'global-teardown.ts'))}).default;
setup().then(() => {
  const dir = process.env.WI_TMP;
  const dynamo = globalThis.__WI_DYNAMO__;
  console.log('STARTED ' + JSON.stringify({
    dir,
    dynamoDir: dynamo ? dirname(dynamo.dynalite.dir) : null,
    watchdog: globalThis.__WI_WATCHDOG__?.pid ?? 0,
    servers: {
      postgres: Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\\n')[0]),
      mariadb: globalThis.__WI_DATABASES__.mariadb.pid,
      redis: globalThis.__WI_REDIS__.process.pid,
      ...(dynamo ? { dynalite: dynamo.dynalite.pid(), dynamodbLocal: dynamo.local.pid() } : {}),
    },
  }));
  // Like jest while its tests run; 'teardown' on stdin ends the run the normal way.
  process.stdin.on('data', () => teardown().then(() => console.log('TORN DOWN')));
});
`;

/** Whether `pid` runs (a zombie has exited). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The processes whose arguments name the run's folder (its servers), however they were started. */
const namingDir = (dir: string | null) =>
  dir === null
    ? []
    : readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((pid) => {
          try {
            return alive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${dir}/`);
          } catch {
            return false;
          }
        });

let leftovers: Started | undefined;

/** What `WI_JEST_SERVERS` runs with the databases and Redis alone. */
const WITHOUT_DYNAMO = 'databases,redis';

/**
 * Starts the stand-in for jest, in a process group of its own (as a terminal's foreground job),
 * with every server or those `servers` names (`WI_JEST_SERVERS`).
 */
async function startRun(servers?: string): Promise<{ run: Child; started: Started }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['WI_TMP', 'WI_PG_URL', 'WI_MYSQL_URL', 'WI_REDIS_URL', 'WI_JEST_SERVERS'])
    delete env[name];
  if (servers) env.WI_JEST_SERVERS = servers;
  const run = start(
    process.execPath,
    ['-r', require.resolve('@webhook-idempotency/test-support/register'), '-e', RUNNER],
    {
      cwd: repoRoot,
      env,
      detached: true,
      stdin: 'pipe',
    },
  );
  await run.waitFor(/STARTED \{.*\}\n/);
  const started = JSON.parse(/STARTED (\{.*\})\n/.exec(run.output())![1]!) as Started;
  leftovers = started;
  return { run, started };
}

/** Waits until every server and the watchdog are gone and the folder removed, or a minute passed. */
async function settled(started: Started) {
  const deadline = Date.now() + 60_000;
  const left = () => ({
    servers: Object.entries(started.servers)
      .filter(([, pid]) => alive(pid))
      .map(([name]) => name),
    others: namingDir(started.dir).length + namingDir(started.dynamoDir).length,
    folder:
      existsSync(started.dir) || (started.dynamoDir !== null && existsSync(started.dynamoDir)),
    watchdog: alive(started.watchdog),
  });
  while (Date.now() < deadline) {
    const now = left();
    if (!now.servers.length && !now.others && !now.folder && !now.watchdog) break;
    await sleep(200);
  }
  return left();
}

afterEach(() => {
  killAll();
  // On a failure, leave nothing behind either.
  if (!leftovers) return;
  for (const pid of [
    ...Object.values(leftovers.servers),
    ...namingDir(leftovers.dir),
    ...namingDir(leftovers.dynamoDir),
  ]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
  rmSync(leftovers.dir, { recursive: true, force: true });
  if (leftovers.dynamoDir) rmSync(leftovers.dynamoDir, { recursive: true, force: true });
  leftovers = undefined;
});

const NOTHING_LEFT = { servers: [], others: 0, folder: false, watchdog: false };

const EVERY_SERVER = ['postgres', 'mariadb', 'redis', 'dynalite', 'dynamodbLocal'];

/** How the run ends, the servers it runs with (unset: every one), and how the test ends it. */
const ENDINGS: [string, string | undefined, (pid: number) => void][] = [
  [
    'Ctrl-C (SIGINT to the whole process group), the databases and Redis',
    WITHOUT_DYNAMO,
    (pid: number) => process.kill(-pid, 'SIGINT'),
  ],
  [
    'SIGTERM to the jest process, the databases and Redis',
    WITHOUT_DYNAMO,
    (pid: number) => process.kill(pid, 'SIGTERM'),
  ],
  [
    'SIGKILL to the jest process, every server',
    undefined,
    (pid: number) => process.kill(pid, 'SIGKILL'),
  ],
];

it.each(ENDINGS)(
  '%s: the servers stop and their folder is removed',
  async (_name, servers, stop) => {
    const { run, started } = await startRun(servers);
    expect(Object.keys(started.servers)).toEqual(
      servers ? ['postgres', 'mariadb', 'redis'] : EVERY_SERVER,
    );
    expect(Object.values(started.servers).every(alive)).toBe(true);
    expect(existsSync(started.dir)).toBe(true);
    expect(started.dynamoDir === null || existsSync(started.dynamoDir)).toBe(true);
    stop(run.pid);
    await run.exited;
    expect(await settled(started)).toEqual(NOTHING_LEFT);
  },
  120_000,
);

it('a run that ends with its teardown stops them itself, and its watchdog exits', async () => {
  const { run, started } = await startRun();
  expect(Object.keys(started.servers)).toEqual(EVERY_SERVER);
  run.write('teardown\n');
  await run.waitFor(/TORN DOWN/);
  expect(await settled(started)).toEqual(NOTHING_LEFT);
}, 120_000);

it('WI_JEST_SERVERS: unset all, none, or the kinds listed; an unknown kind is an error naming the known ones', () => {
  expect(serverKinds(undefined)).toEqual(['databases', 'redis', 'dynamo']);
  expect(serverKinds('none')).toEqual([]);
  expect(serverKinds('redis, databases')).toEqual(['databases', 'redis']);
  expect(() => serverKinds('redis,postgres')).toThrow(
    'WI_JEST_SERVERS=redis,postgres: unknown postgres; use none, or a comma-separated list of databases, redis, dynamo',
  );
});
