// A CommonJS Express app: idempotent() + RedisStore over ioredis, on the test run's Redis.
const { createServer } = require('node:http');
const express = require('express');
const Redis = require('ioredis');
const { idempotent } = require('@webhook-idempotency/express');
const { RedisStore } = require('@webhook-idempotency/redis');
const { exercise } = require('./deliveries.cjs');

async function main() {
  const redis = new Redis(process.env.WI_REDIS_URL);
  redis.on('error', (error) => console.error('redis:', error.message));
  // A prefix of its own: every Node line runs this app against the same Redis.
  const prefix = `consumer:${process.pid}:${Date.now()}:`;
  let runs = 0;
  const app = express();
  app.post(
    '/webhooks',
    express.raw({ type: '*/*' }),
    idempotent({
      store: new RedisStore(redis, { prefix }),
      provider: 'acme',
      key: (req) => req.get('x-delivery-id'),
    }),
    (req, res) => res.status(201).json({ order: ++runs, bytes: req.body.length }),
  );
  await exercise(createServer(app), () => runs);
  redis.disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
