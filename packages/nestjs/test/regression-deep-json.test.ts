/**
 * Regression: without the raw bytes (Nest started without `rawBody: true`), the guard fingerprints
 * the parsed body's canonical JSON, which was written recursively: a 12 KB body of 5,000 nested
 * arrays, sent by anyone, overflowed the stack and was answered 500. It is now written without
 * recursion, so such a body is guarded like any other: run once, then replayed.
 * Over HTTP, through the real Nest adapter, on both platforms.
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import request from 'supertest';
import { Idempotent, IdempotencyModule, type NestRequest } from '../src';
import { type Platform, startNest } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

const DEPTH = 5000;
const NESTED = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const platforms: Platform[] = ['express', 'fastify'];

describe.each(platforms)(
  'a deeply nested JSON body without raw bytes (nestjs on %s)',
  (platform) => {
    it('is guarded like any other: 200 and one run, then a replay; no 500', async () => {
      const store = new InMemoryStore();
      let runs = 0;
      @Controller()
      class DeepController {
        @Post('hook')
        @HttpCode(200)
        @Idempotent()
        hook(@Body() body: unknown) {
          runs++;
          return { ok: Array.isArray(body) };
        }
      }
      @Module({
        imports: [
          IdempotencyModule.forRoot({
            store,
            provider: 'deep',
            key: (req: NestRequest) => req.headers['x-event-id'] as string | undefined,
          }),
        ],
        controllers: [DeepController],
      })
      class DeepModule {}
      const app = await startNest(platform, DeepModule, { rawBody: false });
      try {
        const send = () =>
          request(app.server)
            .post('/hook')
            .set('content-type', 'application/json')
            .set('x-event-id', 'deep-1')
            .send(NESTED);
        const first = await send();
        expect([first.status, first.body]).toEqual([200, { ok: true }]);
        const second = await send();
        expect([second.status, second.headers['idempotent-replayed']]).toEqual([200, 'true']);
        expect(runs).toBe(1);
        const receipt = await new IdempotencyGuard(store).find({
          provider: 'deep',
          externalId: 'deep-1',
        });
        expect(receipt?.status).toBe('completed');
      } finally {
        await app.close();
      }
    });
  },
);
