// A CommonJS Hono app: idempotent() + InMemoryStore, served by @hono/node-server.
const { createAdaptorServer } = require('@hono/node-server');
const { Hono } = require('hono');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { idempotent } = require('@webhook-idempotency/hono');
const { exercise } = require('./deliveries.cjs');

async function main() {
  let runs = 0;
  const app = new Hono();
  app.post(
    '/webhooks',
    idempotent({
      store: new InMemoryStore(),
      provider: 'acme',
      key: (c) => c.req.header('x-delivery-id'),
    }),
    async (c) => {
      await c.req.json();
      return c.json({ order: ++runs }, 201);
    },
  );
  await exercise(createAdaptorServer({ fetch: app.fetch }), () => runs);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
