// A CommonJS Lambda handler: withIdempotency() + InMemoryStore, each request invoked as an HTTP
// API (payload 2.0) event, as API Gateway does, and its result written back.
const { createServer } = require('node:http');
const { InMemoryStore } = require('@webhook-idempotency/core');
const { withIdempotency, bodyOf } = require('@webhook-idempotency/lambda');
const { exercise } = require('./deliveries.cjs');
const { invoke } = require('./lambda-events.cjs');

async function main() {
  let runs = 0;
  const handler = withIdempotency(
    {
      store: new InMemoryStore(),
      provider: 'acme',
      key: (request) => request.headers['x-delivery-id'],
    },
    async (event) => {
      JSON.parse(bodyOf(event).toString('utf8'));
      return { statusCode: 201, body: JSON.stringify({ order: ++runs }) };
    },
  );
  await exercise(createServer(invoke(handler)), () => runs);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
