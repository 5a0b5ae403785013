/**
 * `app.close()` writes the ignored-event counts of the stores the routes guard with (the
 * registry's `onModuleDestroy`), on Nest over Express and over Fastify: a graceful shutdown keeps
 * its last seconds' counts, which otherwise wait for the tally's next write.
 */
import 'reflect-metadata';
import { Controller, Module, Post } from '@nestjs/common';
import { type HttpRequest, InMemoryStore } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import request from 'supertest';
import { Idempotent, IdempotencyModule } from '../src';
import { type Platform, startNest } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

const store = new InMemoryStore();
const ran: string[] = [];
const acme = routes(
  {
    provider: 'acme',
    needsRawBody: false,
    retentionDays: 7,
    key: (req: HttpRequest) => req.headers['x-event-id'] as string,
    eventType: (req: HttpRequest) => req.headers['x-event-type'] as string | undefined,
  },
  { 'order.paid': () => void ran.push('paid') },
);

@Controller()
class HookController {
  @Post('hook')
  @Idempotent({ preset: acme })
  hook() {
    return { ok: true };
  }
}

@Module({ imports: [IdempotencyModule.forRoot({ store })], controllers: [HookController] })
class AppModule {}

describe.each<Platform>(['express', 'fastify'])('nestjs on %s', (platform) => {
  it("app.close() writes the routes' ignored counts", async () => {
    const app = await startNest(platform, AppModule);
    const type = `order.created.${platform}`;
    try {
      for (const id of ['e1', 'e2'])
        expect(
          (
            await request(app.server)
              .post('/hook')
              .set('x-event-id', `${platform}-${id}`)
              .set('x-event-type', type)
              .send({})
          ).status,
        ).toBe(200);
      const counted = async () =>
        (await store.ignoredCounts({ now: Date.now(), since: 0 })).filter((t) => t.type === type);
      expect(await counted()).toEqual([]);
      await app.close();
      expect(await counted()).toEqual([expect.objectContaining({ provider: 'acme', count: 2 })]);
    } finally {
      await app.close().catch(() => undefined);
    }
  });
});
