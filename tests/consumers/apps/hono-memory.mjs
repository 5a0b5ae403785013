// An ES module Hono app: idempotent() + InMemoryStore, served by @hono/node-server.
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/hono';
import { exercise } from './deliveries.cjs';

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
