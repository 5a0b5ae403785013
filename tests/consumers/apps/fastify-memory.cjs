// A CommonJS Fastify app: the plugin + InMemoryStore.
const Fastify = require('fastify');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { fastifyIdempotency } = require('@webhook-idempotency/fastify');
const { exercise } = require('./deliveries.cjs');

async function main() {
  let runs = 0;
  const app = Fastify();
  await app.register(fastifyIdempotency, {
    store: new InMemoryStore(),
    provider: 'acme',
    key: (request) => request.headers['x-delivery-id'],
  });
  app.post('/webhooks', async (request, reply) =>
    reply.code(201).send({ order: ++runs, amount: request.body.amount }),
  );
  await app.ready();
  await exercise(app.server, () => runs);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
