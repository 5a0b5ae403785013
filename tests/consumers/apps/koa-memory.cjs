// A CommonJS Koa app: idempotent() + InMemoryStore.
const { createServer } = require('node:http');
const Koa = require('koa');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { idempotent } = require('@webhook-idempotency/koa');
const { exercise } = require('./deliveries.cjs');

async function main() {
  let runs = 0;
  const app = new Koa();
  app.use(
    idempotent({
      store: new InMemoryStore(),
      provider: 'acme',
      key: (ctx) => ctx.get('x-delivery-id'),
    }),
  );
  app.use((ctx) => {
    ctx.status = 201;
    ctx.body = { order: ++runs };
  });
  await exercise(createServer(app.callback()), () => runs);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
