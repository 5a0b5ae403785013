/**
 * An answer the guard cannot record once Nest has handed it over (here: larger than
 * `maxResponseBytes`) is answered by the application's own global exception filter, as an error
 * of the route would be, not by Nest's base filter behind the application's back; with no filter
 * of the application's that catches it, Nest's own 500 as before.
 */
import 'reflect-metadata';
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  HttpException,
  Module,
  Post,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import request from 'supertest';
import { Idempotent, IdempotencyModule } from '../src';
import { type Platform, startNest } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

const store = new InMemoryStore();
const caught: unknown[] = [];

/** The application's own answer for every error: a problem document. */
@Catch()
class ProblemFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost) {
    caught.push(error);
    const res = host.switchToHttp().getResponse();
    const body = JSON.stringify({ type: 'about:blank', title: 'handled by the app' });
    if (typeof res.code === 'function') res.code(502).type('application/problem+json').send(body);
    else res.status(502).type('application/problem+json').send(body);
  }
}

/** A filter for HTTP exceptions only: it must not take the capture's error. */
@Catch(HttpException)
class HttpOnlyFilter implements ExceptionFilter {
  catch(_error: unknown, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse();
    if (typeof res.code === 'function') res.code(418).send('http only');
    else res.status(418).send('http only');
  }
}

@Controller()
class BigController {
  @Post('hook')
  @Idempotent({ provider: 'p', key: (req) => String(req.headers['x-id']), maxResponseBytes: 16 })
  hook() {
    return { text: 'an answer longer than sixteen bytes' };
  }
}

@Module({
  imports: [IdempotencyModule.forRoot({ store })],
  controllers: [BigController],
  providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
})
class WithFilterModule {}

@Module({
  imports: [IdempotencyModule.forRoot({ store })],
  controllers: [BigController],
  providers: [{ provide: APP_FILTER, useClass: HttpOnlyFilter }],
})
class WithHttpOnlyFilterModule {}

describe.each<Platform>(['express', 'fastify'])('nestjs capture failure on %s', (platform) => {
  it("goes to the application's global exception filter", async () => {
    caught.length = 0;
    const app = await startNest(platform, WithFilterModule);
    try {
      const answer = await request(app.server).post('/hook').set('x-id', `${platform}-1`).send({});
      expect(answer.status).toBe(502);
      expect(answer.body).toEqual({ type: 'about:blank', title: 'handled by the app' });
      expect(caught).toHaveLength(1);
      const receipt = await new IdempotencyGuard(store).find(new RequestKey('p', `${platform}-1`));
      expect(receipt).toMatchObject({ status: 'failed' });
    } finally {
      await app.close();
    }
  });

  it("falls back to Nest's 500 when no filter of the application catches it", async () => {
    const app = await startNest(platform, WithHttpOnlyFilterModule);
    try {
      const answer = await request(app.server).post('/hook').set('x-id', `${platform}-2`).send({});
      expect(answer.status).toBe(500);
    } finally {
      await app.close();
    }
  });
});
