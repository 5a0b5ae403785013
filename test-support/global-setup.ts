/**
 * @module Jest global setup: starts the database servers the SQL store tests need, Redis for the
 * BullMQ bridge and the Redis store, and the DynamoDB-compatible servers (dynalite, DynamoDB Local)
 * for the DynamoDB store.
 */
import { startDatabases, stopDatabases, type RunningDatabases } from './databases';
import { startDynamo, stopDynamo, type RunningDynamo } from './dynamodb';
import { startRedis, stopRedis, type RunningRedis } from './redis';

declare global {
  // Read back by global-teardown (jest runs both in the same process).
  var __WI_DATABASES__: RunningDatabases | undefined;
  var __WI_REDIS__: RunningRedis | undefined;
  var __WI_DYNAMO__: RunningDynamo | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Redis starts in tens of milliseconds, dynalite in about one second and DynamoDB Local (a JVM)
  // in a few, beside the databases' seconds: they start side by side.
  const [databases, redis, dynamo] = await Promise.allSettled([
    startDatabases(),
    startRedis(),
    startDynamo(),
  ]);
  if (
    databases.status === 'rejected' ||
    redis.status === 'rejected' ||
    dynamo.status === 'rejected'
  ) {
    if (databases.status === 'fulfilled') await stopDatabases(databases.value);
    if (redis.status === 'fulfilled') await stopRedis(redis.value);
    if (dynamo.status === 'fulfilled') await stopDynamo(dynamo.value);
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
