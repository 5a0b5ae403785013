/**
 * An answer over `maxResponseBytes` is not held whole while the method writes it: the held
 * response keeps at most the limit plus one byte, and the over-limit rule still applies at `end`
 * (receipt failed, Nest's 500).
 */
import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Controller, Module, Post, Res } from '@nestjs/common';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import request from 'supertest';
import { Idempotent, IdempotencyModule } from '../src';
import { startNest } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CHUNK = 256 * 1024;
const store = new InMemoryStore();
let alive = -1;

@Controller()
class BigController {
  @Post('hook')
  @Idempotent({ provider: 'p', key: () => 'big', maxResponseBytes: CHUNK })
  async hook(@Res() res: ServerResponse) {
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
  }
}

@Module({ imports: [IdempotencyModule.forRoot({ store })], controllers: [BigController] })
class BigModule {}

describe('nestjs held response past maxResponseBytes', () => {
  it('lets the chunks past the limit go while the method still writes, then fails the record as too large', async () => {
    const app = await startNest('express', BigModule);
    try {
      const answer = await request(app.server).post('/hook').send({ a: 1 });
      expect(answer.status).toBe(500);
      expect(alive).toBe(0);
      expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'big'))).toMatchObject({
        status: 'failed',
      });
    } finally {
      await app.close();
    }
  });
});
