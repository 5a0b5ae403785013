/**
 * @module `@webhook-idempotency/adapter-conformance/apps/nestjs-memory`: the NestJS endpoints the
 * reliability memory test floods (loaded by its child process, so the decorators are applied as
 * calls, without compiler support): `@Idempotent()` on `/guard` on the Express and the Fastify
 * platform, and the Express adapter's `inbox()` as module middleware on `/inbox`, with
 * `rawBody: true` and each platform's default body limit.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import {
  Controller,
  HttpCode,
  type MiddlewareConsumer,
  Module,
  Post,
  RequestMethod,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { InMemoryStore } from '@webhook-idempotency/core';
import { inbox } from '@webhook-idempotency/express';
import { Idempotent, IdempotencyModule } from '@webhook-idempotency/nestjs';
import * as providers from '@webhook-idempotency/providers';

const preset = () => providers.stripe({ secret: 'whsec_memory' });

/** Applies method decorators to `target[key]` in source order (the last one listed runs first). */
function decorate(target: object, key: string, decorators: MethodDecorator[]): void {
  let descriptor = Object.getOwnPropertyDescriptor(target, key)!;
  for (const decorator of [...decorators].reverse())
    descriptor =
      (decorator(target, key, descriptor) as PropertyDescriptor | undefined) ?? descriptor;
  Object.defineProperty(target, key, descriptor);
}

class GuardController {
  guard(): unknown {
    return { ok: true };
  }
}
decorate(GuardController.prototype, 'guard', [Post('guard'), HttpCode(200), Idempotent()]);
Controller()(GuardController);

class WebhooksModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(inbox({ inbox: { enqueue: async () => true } as never, preset: preset() }))
      .forRoutes({ path: 'inbox', method: RequestMethod.POST });
  }
}
Module({
  imports: [IdempotencyModule.forRoot({ store: new InMemoryStore(), preset: preset() })],
  controllers: [GuardController],
})(WebhooksModule);

/** Both platforms: `nestjs express /guard`, `nestjs express /inbox`, `nestjs fastify /guard`. */
export async function nestApps() {
  const options = { rawBody: true, logger: false as const, forceCloseConnections: true };
  const onExpress = await NestFactory.create(WebhooksModule, new ExpressAdapter(), options);
  const onFastify = await NestFactory.create(WebhooksModule, new FastifyAdapter(), options);
  await onExpress.listen(0, '127.0.0.1');
  await onFastify.listen(0, '127.0.0.1');
  const port = (app: typeof onExpress) => (app.getHttpServer().address() as AddressInfo).port;
  return {
    endpoints: [
      // Nest's Express platform parses with body-parser, which drains a refused body before its 413.
      { name: 'nestjs express /guard', port: port(onExpress), path: '/guard', drainsBody: true },
      { name: 'nestjs express /inbox', port: port(onExpress), path: '/inbox', drainsBody: true },
      // Fastify ends the connection after its 413: the client may see the reset instead.
      { name: 'nestjs fastify /guard', port: port(onFastify), path: '/guard', mayReset: true },
    ],
    async close() {
      await onExpress.close();
      await onFastify.close();
    },
  };
}
