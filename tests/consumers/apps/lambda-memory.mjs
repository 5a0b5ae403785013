// An ES module Lambda handler: withIdempotency() + InMemoryStore, each request invoked as an HTTP
// API (payload 2.0) event, as API Gateway does, and its result written back.
import { createServer } from 'node:http';
import { InMemoryStore } from '@webhook-idempotency/core';
import { bodyOf, withIdempotency } from '@webhook-idempotency/lambda';
import { exercise } from './deliveries.cjs';
import { invoke } from './lambda-events.cjs';

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
