/** @module Jest global teardown: stops what global-setup started, then disarms its watchdog. */
import { stopDatabases } from './databases';
import { stopDynamo } from './dynamodb';
import { stopRedis } from './redis';

export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__WI_DATABASES__;
  const redis = globalThis.__WI_REDIS__;
  const dynamo = globalThis.__WI_DYNAMO__;
  const watchdog = globalThis.__WI_WATCHDOG__;
  globalThis.__WI_DATABASES__ = undefined;
  globalThis.__WI_REDIS__ = undefined;
  globalThis.__WI_DYNAMO__ = undefined;
  globalThis.__WI_WATCHDOG__ = undefined;
  await Promise.all([
    running && stopDatabases(running),
    redis && stopRedis(redis),
    dynamo && stopDynamo(dynamo),
  ]);
  watchdog?.disarm();
}
