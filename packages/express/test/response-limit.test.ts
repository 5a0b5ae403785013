/**
 * An answer over `maxResponseBytes` is not held whole while the handler writes it: the capture
 * keeps at most the limit plus one byte, drops the rest, and the over-limit rule still applies at
 * `end` (receipt failed, the error to Express's error handling).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import express from 'express';
import request from 'supertest';
import { idempotent } from '../src';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CHUNK = 256 * 1024;

describe('express capture past maxResponseBytes', () => {
  it('lets the chunks past the limit go while the handler still writes, then fails the record as too large', async () => {
    const store = new InMemoryStore();
    let alive = -1;
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent({ store, provider: 'p', key: () => 'big', maxResponseBytes: CHUNK }),
      async (_req, res) => {
        const written: Array<WeakRef<Buffer>> = [];
        // Each chunk made in a function of its own, so that no frame of this one keeps it.
        const writeOne = (fill: number) => {
          const chunk = Buffer.alloc(CHUNK, fill);
          written.push(new WeakRef(chunk));
          res.write(chunk);
        };
        for (let i = 0; i < 16; i++) writeOne(i);
        // A WeakRef keeps its target alive until the current job ends: collect in a later one.
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        // The first chunk fits the limit and is held; every later one is garbage.
        alive = written.slice(1).filter((ref) => ref.deref() !== undefined).length;
        res.end();
      },
    );
    app.use((error: { code?: string }, _req: unknown, res: express.Response, _next: unknown) => {
      res.status(500).send(error.code);
    });
    const answer = await request(app).post('/hook').send('x');
    expect([answer.status, answer.text]).toEqual([500, 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE']);
    expect(alive).toBe(0);
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'big'))).toMatchObject({
      status: 'failed',
    });
  });
});
