// An ES module Koa app: idempotent() + InMemoryStore.
import { createServer } from 'node:http';
import Koa from 'koa';
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/koa';
import { exercise } from './deliveries.cjs';

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
