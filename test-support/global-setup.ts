/**
 * @module Jest global setup: generates the Prisma clients the ORM tests import (when out of date),
 * and starts the database servers the SQL store tests need, Redis for the BullMQ bridge and the
 * Redis store, and the DynamoDB-compatible servers (dynalite, DynamoDB Local) for the DynamoDB store,
 * under a watchdog that stops them and removes their folder should jest end without its global
 * teardown (Ctrl-C). `WI_JEST_SERVERS` narrows them: `none` (a run of suites that need none), or a
 * comma-separated list of `databases` (PostgreSQL and MariaDB), `redis` and `dynamo` (dynalite and
 * DynamoDB Local); unset, all of them.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startDatabases, stopDatabases, type RunningDatabases } from './databases';
import { startDynamo, stopDynamo, type RunningDynamo } from './dynamodb';
import globalTeardown from './global-teardown';
import { startRedis, stopRedis, type RunningRedis } from './redis';
import { startWatchdog, type Watchdog } from './watchdog';

declare global {
  // Read back by global-teardown (jest runs both in the same process).
  var __WI_DATABASES__: RunningDatabases | undefined;
  var __WI_REDIS__: RunningRedis | undefined;
  var __WI_WATCHDOG__: Watchdog | undefined;
  var __WI_DYNAMO__: RunningDynamo | undefined;
}

const run = promisify(execFile);

/**
 * scripts/prisma-generate.mjs: a few file reads when every client is up to date; otherwise it
 * generates what is not, one jest run at a time.
 */
async function generatePrismaClients(): Promise<void> {
  const script = join(__dirname, '..', 'scripts', 'prisma-generate.mjs');
  try {
    const { stderr } = await run(process.execPath, [script], { maxBuffer: 16 * 1024 * 1024 });
    if (stderr) process.stderr.write(stderr);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`scripts/prisma-generate.mjs failed:\n${stderr ?? String(error)}`);
  }
}

const SERVER_KINDS = ['databases', 'redis', 'dynamo'] as const;
type ServerKind = (typeof SERVER_KINDS)[number];

/** The kinds of server a `WI_JEST_SERVERS` of `setting` asks for (see the module's comment). */
export function serverKinds(setting: string | undefined): readonly ServerKind[] {
  if (setting === undefined || setting === '') return SERVER_KINDS;
  if (setting === 'none') return [];
  const named = setting.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !(SERVER_KINDS as readonly string[]).includes(name));
  if (unknown.length)
    throw new Error(
      `WI_JEST_SERVERS=${setting}: unknown ${unknown.join(', ')}; use none, or a comma-separated list of ${SERVER_KINDS.join(', ')}`,
    );
  return SERVER_KINDS.filter((kind) => named.includes(kind));
}

/** The servers of `kinds`, started side by side; whatever started is stopped again when one fails. */
async function startServers(kinds: readonly ServerKind[]): Promise<void> {
  const watchdog = startWatchdog();
  globalThis.__WI_WATCHDOG__ = watchdog;
  const wanted = <T>(kind: ServerKind, start: () => Promise<T>) =>
    kinds.includes(kind) ? start() : Promise.resolve(undefined);
  // Redis starts in tens of milliseconds, dynalite in about one second and DynamoDB Local (a JVM)
  // in a few, beside the databases' seconds: they start side by side.
  const [databases, redis, dynamo] = await Promise.allSettled([
    wanted('databases', () => startDatabases(watchdog)),
    wanted('redis', () => startRedis(watchdog)),
    wanted('dynamo', () =>
      startDynamo().then((started) => {
        watchdog.watchDir(dirname(started.dynalite.dir));
        watchdog.watchPid(started.dynalite.pid());
        watchdog.watchPid(started.local.pid());
        return started;
      }),
    ),
  ]);
  if (
    databases.status === 'rejected' ||
    redis.status === 'rejected' ||
    dynamo.status === 'rejected'
  ) {
    if (databases.status === 'fulfilled' && databases.value) await stopDatabases(databases.value);
    if (redis.status === 'fulfilled' && redis.value) await stopRedis(redis.value);
    if (dynamo.status === 'fulfilled' && dynamo.value) await stopDynamo(dynamo.value);
    watchdog.disarm();
    globalThis.__WI_WATCHDOG__ = undefined;
    throw [databases, redis, dynamo].find(
      (started): started is PromiseRejectedResult => started.status === 'rejected',
    )!.reason;
  }
  globalThis.__WI_DATABASES__ = databases.value;
  globalThis.__WI_REDIS__ = redis.value;
  globalThis.__WI_DYNAMO__ = dynamo.value;
  // Workers inherit the environment: each test file creates its own database from these.
  if (databases.value) {
    process.env.WI_PG_URL = databases.value.pgUrl;
    process.env.WI_MYSQL_URL = databases.value.mysqlUrl;
    process.env.WI_TMP = databases.value.dir;
  }
  if (redis.value) process.env.WI_REDIS_URL = redis.value.url;
  if (dynamo.value) {
    process.env.WI_DYNALITE_URL = dynamo.value.dynalite.url;
    process.env.WI_DYNAMODB_LOCAL_URL = dynamo.value.local.url;
  }
}

export default async function globalSetup(): Promise<void> {
  const kinds = serverKinds(process.env.WI_JEST_SERVERS);
  const servers = kinds.length === 0 ? undefined : startServers(kinds);
  const [clients, started] = await Promise.allSettled([generatePrismaClients(), servers]);
  if (clients.status === 'rejected') {
    if (started.status === 'fulfilled') await globalTeardown();
    throw clients.reason;
  }
  if (started.status === 'rejected') throw started.reason;
}
