// A CommonJS Nest app on the Express platform: IdempotencyModule + @Idempotent() + InMemoryStore,
// with the decorators applied as functions (plain JavaScript has no decorator syntax).
require('reflect-metadata');
const { Body, Controller, Module, Post } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { Idempotent, IdempotencyModule } = require('@webhook-idempotency/nestjs');
const { exercise } = require('./deliveries.cjs');

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
    [Post('webhooks'), Idempotent()],
    Webhooks.prototype,
    'receive',
    Object.getOwnPropertyDescriptor(Webhooks.prototype, 'receive'),
  ),
);
Controller()(Webhooks);

class AppModule {}
Module({
  imports: [
    IdempotencyModule.forRoot({
      store: new InMemoryStore(),
      provider: 'acme',
      key: (req) => req.headers['x-delivery-id'],
    }),
  ],
  controllers: [Webhooks],
})(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { rawBody: true, logger: false });
  await app.init();
  await exercise(app.getHttpServer(), () => runs);
  await app.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
