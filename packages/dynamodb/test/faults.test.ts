/**
 * A dynalite server of its own (its data in LevelDB files) SIGKILLed, then SIGSTOPped, under the
 * store: while it is down or hung every call fails as a `StoreError` (503 with Retry-After through
 * the Express adapter), bounded by `requestTimeoutMs` even with a client that would wait forever,
 * with no unhandled rejection and no crash; started again, the same client works on and the
 * completed receipt is still there.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyGuard, StoreError } from '@webhook-idempotency/core';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import { type DynamoServer, startDynalite } from '@webhook-idempotency/test-support/dynamodb';
import express from 'express';
import request from 'supertest';
import { DynamoDBRequestTimeout, DynamoDBStore } from '../src';
import { clientFor, createTable } from './helpers/dynamodb';

const TIMEOUT_MS = 1_000;

describe('dynalite killed, hung and restarted under the store', () => {
  let dynalite: DynamoServer;
  let client: DynamoDBClient;
  let server: Server | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  beforeAll(async () => {
    dynalite = await startDynalite(
      mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'dynalite-faults-')),
      { persist: true },
    );
    // A client left to its defaults for how long a request may take: only the store's bound ends a call.
    client = clientFor(dynalite.url, { maxAttempts: 3 });
    await createTable(client, 'webhook_receipts');
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    client.destroy();
    process.kill(dynalite.pid(), 'SIGCONT');
    await dynalite.destroy();
  });

  it('fails fast while down or hung (StoreError, 503), then works on with what it had written', async () => {
    const store = new DynamoDBStore(client, { requestTimeoutMs: TIMEOUT_MS, transactions: false });
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

    await dynalite.kill();
    const down = await guard.run({ provider: 'p', externalId: 'during' }, handler).catch((e) => e);
    expect(down).toBeInstanceOf(StoreError);
    const answer = await request(server).post('/hook').set('x-id', 'http-during').send('{}');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBeDefined();
    expect(answer.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_STORE' });
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);

    await dynalite.start();
    // Hung: the process holds its port and answers nothing.
    process.kill(dynalite.pid(), 'SIGSTOP');
    const hung = await guard.run({ provider: 'p', externalId: 'hung' }, handler).catch((e) => e);
    expect(hung).toBeInstanceOf(StoreError);
    // Ended by the store's bound: the client alone would wait forever.
    expect((hung as StoreError).cause).toBeInstanceOf(DynamoDBRequestTimeout);
    const hungAnswer = await request(server).post('/hook').set('x-id', 'http-hung').send('{}');
    expect(hungAnswer.status).toBe(503);
    process.kill(dynalite.pid(), 'SIGCONT');
    expect(handler).toHaveBeenCalledTimes(1);

    // The LevelDB files kept the completed receipt.
    expect(await guard.run({ provider: 'p', externalId: 'before' }, handler)).toEqual({
      response: { booked: true },
      isReplay: true,
      attempts: 1,
    });
    expect(await guard.run({ provider: 'p', externalId: 'after' }, handler)).toMatchObject({
      isReplay: false,
    });
    await request(server).post('/hook').set('x-id', 'http-after').send('{}').expect(200);
    expect(handler).toHaveBeenCalledTimes(2);
    expect(unhandled).toEqual([]);
  });
});
