/**
 * @module Jest global setup: generates the Prisma clients the ORM tests import (when out of date),
 * and starts the database servers the SQL store tests need, Redis for the BullMQ bridge and the
 * Redis store, and the DynamoDB-compatible servers (dynalite, DynamoDB Local) for the DynamoDB store
 * (`WI_JEST_SERVERS=none`: no server, for a run of suites that need none), under a watchdog that
 * stops them and removes their folder should jest end without its global teardown (Ctrl-C).
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

/** The servers, started side by side; whatever started is stopped again when one fails. */
async function startServers(): Promise<void> {
  const watchdog = startWatchdog();
  globalThis.__WI_WATCHDOG__ = watchdog;
  // Redis starts in tens of milliseconds, dynalite in about one second and DynamoDB Local (a JVM)
  // in a few, beside the databases' seconds: they start side by side.
  const [databases, redis, dynamo] = await Promise.allSettled([
    startDatabases(watchdog),
    startRedis(watchdog),
    startDynamo().then((started) => {
      watchdog.watchDir(dirname(started.dynalite.dir));
      watchdog.watchPid(started.dynalite.pid());
      watchdog.watchPid(started.local.pid());
      return started;
    }),
  ]);
  if (
    databases.status === 'rejected' ||
    redis.status === 'rejected' ||
    dynamo.status === 'rejected'
  ) {
    if (databases.status === 'fulfilled') await stopDatabases(databases.value);
    if (redis.status === 'fulfilled') await stopRedis(redis.value);
    if (dynamo.status === 'fulfilled') await stopDynamo(dynamo.value);
    watchdog.disarm();
    globalThis.__WI_WATCHDOG__ = undefined;
    throw [databases, redis, dynamo].find(
      (started): started is PromiseRejectedResult => started.status === 'rejected',
    )!.reason;
  }
  const running = databases.value;
  globalThis.__WI_DATABASES__ = running;
  globalThis.__WI_REDIS__ = redis.value;
  globalThis.__WI_DYNAMO__ = dynamo.value;
  // Workers inherit the environment: each test file creates its own database from these.
  process.env.WI_PG_URL = running.pgUrl;
  process.env.WI_MYSQL_URL = running.mysqlUrl;
  process.env.WI_TMP = running.dir;
  process.env.WI_REDIS_URL = redis.value.url;
  process.env.WI_DYNALITE_URL = dynamo.value.dynalite.url;
  process.env.WI_DYNAMODB_LOCAL_URL = dynamo.value.local.url;
}

export default async function globalSetup(): Promise<void> {
  const servers = process.env.WI_JEST_SERVERS === 'none' ? undefined : startServers();
  const [clients, started] = await Promise.allSettled([generatePrismaClients(), servers]);
  if (clients.status === 'rejected') {
    if (started.status === 'fulfilled') await globalTeardown();
    throw clients.reason;
  }
  if (started.status === 'rejected') throw started.reason;
}
