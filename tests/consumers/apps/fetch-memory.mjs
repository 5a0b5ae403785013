// An ES module fetch handler: withIdempotency() + InMemoryStore, served through @hono/node-server.
import { createAdaptorServer } from '@hono/node-server';
import { InMemoryStore } from '@webhook-idempotency/core';
import { withIdempotency } from '@webhook-idempotency/fetch';
import { exercise } from './deliveries.cjs';

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
