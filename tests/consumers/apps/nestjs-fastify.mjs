// An ES module Nest app on the Fastify platform: IdempotencyModule.forRootAsync + @Idempotent()
// with per-route options, the decorators applied as functions (plain JavaScript).
import 'reflect-metadata';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { InMemoryStore } from '@webhook-idempotency/core';
import { Idempotent, IdempotencyModule } from '@webhook-idempotency/nestjs';
import { exercise } from './deliveries.cjs';

let runs = 0;

class Webhooks {
  receive(body) {
    return { order: ++runs, amount: body.amount };
  }
}
Body()(Webhooks.prototype, 'receive', 0);
Object.defineProperty(
  Webhooks.prototype,
  'receive',
  Reflect.decorate(
    [
      Post('webhooks'),
      Idempotent({ provider: 'acme', key: (req) => req.headers['x-delivery-id'] }),
    ],
    Webhooks.prototype,
    'receive',
    Object.getOwnPropertyDescriptor(Webhooks.prototype, 'receive'),
  ),
);
Controller()(Webhooks);

class AppModule {}
Module({
  imports: [
    IdempotencyModule.forRootAsync({ useFactory: async () => ({ store: new InMemoryStore() }) }),
  ],
  controllers: [Webhooks],
})(AppModule);

const app = await NestFactory.create(AppModule, new FastifyAdapter(), {
  rawBody: true,
  logger: false,
});
await app.init();
await app.getHttpAdapter().getInstance().ready();
await exercise(app.getHttpServer(), () => runs);
await app.close();
