/**
 * A Redis server SIGKILLed under the store, with each client: while it is down every call fails
 * as a `StoreError` (503 with Retry-After through the Express adapter), bounded by
 * `commandTimeoutMs` even when the client itself would wait forever, with no unhandled rejection
 * and no crash; started again, the same clients work on, the append-only file kept the completed
 * receipt (`appendfsync always`), and the scripts the restarted server forgot are loaded again.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, StoreError } from '@webhook-idempotency/core';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import {
  type KillableRedis,
  startDurableRedis,
} from '@webhook-idempotency/test-support/durable-redis';
import express from 'express';
import Redis from 'ioredis';
import { createClient } from 'redis';
import request from 'supertest';
import { RedisCommandTimeout, RedisStore, type RedisClient } from '../src';

const TIMEOUT_MS = 1_000;

/** Clients configured to wait for the server on their own as long as it takes: only the store's bound ends a call. */
const clients: Record<
  string,
  (url: string) => Promise<{ client: RedisClient; close(): Promise<void> }>
> = {
  'ioredis (maxRetriesPerRequest: null, offline queue on)': async (url) => {
    const client = new Redis(url, { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    return { client, close: async () => void client.disconnect() };
  },
  'node-redis (offline queue on, reconnecting)': async (url) => {
    const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => undefined);
    await client.connect();
    return { client, close: async () => void client.destroy() };
  },
};

describe.each(Object.entries(clients))('Redis killed and restarted under %s', (_name, open) => {
  let redis: KillableRedis;
  let opened: Awaited<ReturnType<typeof open>>;
  let server: Server;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  beforeAll(async () => {
    redis = await startDurableRedis(
      mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'redis-faults-')),
    );
    opened = await open(redis.url);
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await opened.close();
    await redis.destroy();
  });

  it('fails fast while down (StoreError, 503), then works on with what it had acknowledged', async () => {
    const store = new RedisStore(opened.client, { commandTimeoutMs: TIMEOUT_MS });
    const guard = new IdempotencyGuard(store);
    const handler = jest.fn(async () => ({ booked: true }));
    expect(await guard.run({ provider: 'p', externalId: 'before' }, handler)).toMatchObject({
      isReplay: false,
    });
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent({ store, provider: 'p', key: (req) => req.get('x-id') }),
      (_req, res) => void res.json({ ok: true }),
    );
    app.use(idempotencyErrors());
    server = app.listen(0, '127.0.0.1');

    await redis.kill();
    const down = await guard.run({ provider: 'p', externalId: 'during' }, handler).catch((e) => e);
    expect(down).toBeInstanceOf(StoreError);
    expect((down as StoreError).cause).toBeInstanceOf(RedisCommandTimeout);
    const answer = await request(server).post('/hook').set('x-id', 'http-during').send('{}');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBeDefined();
    expect(answer.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_STORE' });
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|Redis did not answer/);
    expect(handler).toHaveBeenCalledTimes(1);

    await redis.start();
    // The restarted server replayed its append-only file: the completed receipt is there, and the
    // scripts it forgot are loaded again by the first call that needs them.
    let replay: Awaited<ReturnType<typeof guard.run>> | undefined;
    for (let i = 0; i < 50 && !replay; i++) {
      replay = await guard.run({ provider: 'p', externalId: 'before' }, handler).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    }
    expect(replay).toEqual({ response: { booked: true }, isReplay: true, attempts: 1 });
    expect(await guard.run({ provider: 'p', externalId: 'after' }, handler)).toMatchObject({
      isReplay: false,
    });
    await request(server).post('/hook').set('x-id', 'http-after').send('{}').expect(200);
    expect(handler).toHaveBeenCalledTimes(2);
    expect(unhandled).toEqual([]);
  });
});
