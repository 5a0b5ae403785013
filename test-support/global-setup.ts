/** @module Jest global setup: starts the database servers the SQL store tests need, and Redis for the BullMQ bridge. */
import { startDatabases, stopDatabases, type RunningDatabases } from './databases';
import { startRedis, stopRedis, type RunningRedis } from './redis';

declare global {
  // Read back by global-teardown (jest runs both in the same process).
  var __WI_DATABASES__: RunningDatabases | undefined;
  var __WI_REDIS__: RunningRedis | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Redis starts in tens of milliseconds, beside the databases' seconds: no run waits for it.
  const [databases, redis] = await Promise.allSettled([startDatabases(), startRedis()]);
  if (databases.status === 'rejected' || redis.status === 'rejected') {
    if (databases.status === 'fulfilled') await stopDatabases(databases.value);
    if (redis.status === 'fulfilled') await stopRedis(redis.value);
    throw databases.status === 'rejected'
      ? databases.reason
      : (redis as PromiseRejectedResult).reason;
  }
  const running = databases.value;
  globalThis.__WI_DATABASES__ = running;
  globalThis.__WI_REDIS__ = redis.value;
  // Workers inherit the environment: each test file creates its own database from these.
  process.env.WI_PG_URL = running.pgUrl;
  process.env.WI_MYSQL_URL = running.mysqlUrl;
  process.env.WI_TMP = running.dir;
  process.env.WI_REDIS_URL = redis.value.url;
}
