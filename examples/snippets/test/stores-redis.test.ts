/** docs/stores.md, "RedisStore": the ioredis and node-redis snippets and the idempotent business write, on the run's Redis and PostgreSQL. */
import { IdempotencyGuard } from '@webhook-idempotency/core';
import { RedisStore } from '@webhook-idempotency/redis';
import Redis from 'ioredis';
import pg from 'pg';
import { bookPayment, ioredisExample, nodeRedisExample } from '../src/stores-redis';
import { pgDatabase } from './helpers/databases';

const run = `${Date.now()}-${process.pid}`;
beforeAll(() => {
  process.env.REDIS_URL = process.env.WI_REDIS_URL;
});
afterAll(() => {
  delete process.env.REDIS_URL;
});

it('ioredis: the build is queued once; the redelivery is a replay, and the receipt expires in 7 days', async () => {
  const queueBuild = jest.fn(async () => undefined);
  const deliveryId = `72d3162e-${run}`;
  const first = await ioredisExample(deliveryId, queueBuild);
  const second = await ioredisExample(deliveryId, queueBuild);
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(queueBuild).toHaveBeenCalledTimes(1);
    const ttl = await first.redis.pttl(`shop:receipts:{github\u0000${deliveryId}}`);
    expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 86_400_000);
  } finally {
    first.redis.disconnect();
    second.redis.disconnect();
  }
});

it('node-redis: the connected client with its error listener runs a handler once', async () => {
  const { client, guard } = await nodeRedisExample();
  try {
    const handler = jest.fn(async () => 'done');
    const key = { provider: 'snippets', externalId: `node-redis-${run}` };
    expect((await guard.run(key, handler)).isReplay).toBe(false);
    expect((await guard.run(key, handler)).isReplay).toBe(true);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(client.listenerCount('error')).toBe(1);
  } finally {
    client.destroy();
  }
});

it('the idempotent business write: a run again after an unrecorded first run books the payment once', async () => {
  const pool = new pg.Pool({ connectionString: await pgDatabase('snippets_redis') });
  const redis = new Redis(process.env.WI_REDIS_URL!);
  try {
    await pool.query('CREATE TABLE payments (event_id TEXT PRIMARY KEY, order_id TEXT NOT NULL)');
    const guard = new IdempotencyGuard(new RedisStore(redis, { prefix: `snippets:${run}:` }));
    const event = { id: `evt_${run}`, data: { object: { metadata: { orderId: 'ord_1' } } } };
    // The first run's process died after its write, before the receipt was recorded: the payment
    // row is there, the receipt is not (a fresh prefix stands for the lost receipt).
    await bookPayment(guard, pool, event);
    const again = new IdempotencyGuard(new RedisStore(redis, { prefix: `snippets:${run}:b:` }));
    expect(await bookPayment(again, pool, event)).toMatchObject({ isReplay: false });
    expect(await bookPayment(again, pool, event)).toMatchObject({ isReplay: true });
    expect((await pool.query('SELECT event_id, order_id FROM payments')).rows).toEqual([
      { event_id: event.id, order_id: 'ord_1' },
    ]);
  } finally {
    await pool.end();
    redis.disconnect();
  }
});
