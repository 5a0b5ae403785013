// A CommonJS fetch handler: withIdempotency() + InMemoryStore, served through @hono/node-server.
const { createAdaptorServer } = require('@hono/node-server');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { withIdempotency } = require('@webhook-idempotency/fetch');
const { exercise } = require('./deliveries.cjs');

async function main() {
  let runs = 0;
  const POST = withIdempotency(
    {
      store: new InMemoryStore(),
      provider: 'acme',
      key: (request) => request.headers.get('x-delivery-id'),
    },
    async (request) => {
      await request.json();
      return Response.json({ order: ++runs }, { status: 201 });
    },
  );
  await exercise(createAdaptorServer({ fetch: (request) => POST(request) }), () => runs);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
