// An ES module Fastify app: the plugin (default export) + InMemoryStore.
import Fastify from 'fastify';
import { InMemoryStore } from '@webhook-idempotency/core';
import fastifyIdempotency from '@webhook-idempotency/fastify';
import { exercise } from './deliveries.cjs';

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
