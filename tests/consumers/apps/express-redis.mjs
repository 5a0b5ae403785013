// An ES module Express app: idempotent() + RedisStore over node-redis, on the test run's Redis.
import { createServer } from 'node:http';
import express from 'express';
import { createClient } from 'redis';
import { idempotent } from '@webhook-idempotency/express';
import { RedisStore } from '@webhook-idempotency/redis';
import { exercise } from './deliveries.cjs';

const client = createClient({ url: process.env.WI_REDIS_URL });
client.on('error', (error) => console.error('redis:', error.message));
await client.connect();
// A prefix of its own: every Node line runs this app against the same Redis.
const prefix = `consumer:${process.pid}:${Date.now()}:`;
let runs = 0;
const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  idempotent({
    store: new RedisStore(client, { prefix, retentionSeconds: 3600 }),
    provider: 'acme',
    key: (req) => req.get('x-delivery-id'),
  }),
  (req, res) => res.status(201).json({ order: ++runs, bytes: req.body.length }),
);
await exercise(createServer(app), () => runs);
client.destroy();
