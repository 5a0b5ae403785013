/** @module docs/stores.md and packages/redis/README.md: RedisStore over ioredis and node-redis. Run by test/stores-redis.test.ts. */
// #region ioredis
import Redis from 'ioredis';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { RedisStore } from '@webhook-idempotency/redis';
// #endregion ioredis
// #region node-redis
import { createClient } from 'redis';
// #endregion node-redis
import type pg from 'pg';

/** One delivery of a GitHub push over ioredis; `REDIS_URL` names the Redis, `queueBuild` is the app's. */
export async function ioredisExample(
  deliveryId: string,
  queueBuild: (sha: string) => Promise<void>,
): Promise<{ redis: Redis; isReplay: boolean }> {
  // #region ioredis
  const redis = new Redis(process.env.REDIS_URL!); // reconnects by itself
  redis.on('error', (error) => console.error('redis:', error.message));
  const store = new RedisStore(redis, {
    prefix: 'shop:receipts:', // one per application and environment sharing this Redis
    retentionSeconds: 7 * 86_400, // finished receipts expire after 7 days: longer than GitHub redelivers
  });
  const guard = new IdempotencyGuard(store);

  const outcome = await guard.run(new RequestKey('github', deliveryId), async () => {
    await queueBuild('9f2c1e0');
    return 'queued';
  });
  // #endregion ioredis
  return { redis, isReplay: outcome.isReplay };
}

/** The same over node-redis. */
export async function nodeRedisExample() {
  // #region node-redis
  const client = createClient({ url: process.env.REDIS_URL });
  // Required by node-redis: an 'error' event without a listener ends the process.
  client.on('error', (error) => console.error('redis:', error.message));
  await client.connect();
  const guard = new IdempotencyGuard(new RedisStore(client, { commandTimeoutMs: 2_000 }));
  // #endregion node-redis
  return { client, guard };
}

/** A Stripe payment booked in PostgreSQL with its receipt in Redis: the write is idempotent on its own. */
export function bookPayment(
  guard: IdempotencyGuard,
  pool: pg.Pool,
  event: { id: string; data: { object: { metadata: { orderId: string } } } },
) {
  // #region idempotent-write
  return guard.run(new RequestKey('stripe', event.id), async () => {
    // The receipt is in Redis, the payment in PostgreSQL: they do not commit together, so a crash
    // between the two runs this again. Keyed on the event id, the second run changes nothing.
    await pool.query(
      'INSERT INTO payments (event_id, order_id) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING',
      [event.id, event.data.object.metadata.orderId],
    );
    return { received: true };
  });
  // #endregion idempotent-write
}
