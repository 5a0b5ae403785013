// A CommonJS consumer (`require` condition, .d.cts declarations).
import core = require('@webhook-idempotency/core');
import sql = require('@webhook-idempotency/sql');
import expressAdapter = require('@webhook-idempotency/express');
import fastifyAdapter = require('@webhook-idempotency/fastify');
import koaAdapter = require('@webhook-idempotency/koa');
import fetchAdapter = require('@webhook-idempotency/fetch');
import honoAdapter = require('@webhook-idempotency/hono');
import lambdaAdapter = require('@webhook-idempotency/lambda');
import bullmqBridge = require('@webhook-idempotency/bullmq');
import redis = require('@webhook-idempotency/redis');
import dynamodb = require('@webhook-idempotency/dynamodb');
import cli = require('@webhook-idempotency/cli');
import adapter = require('@webhook-idempotency/core/adapter');
import testing = require('@webhook-idempotency/core/testing');
import signers = require('@webhook-idempotency/providers/testing');
import sqlKysely = require('@webhook-idempotency/sql/kysely');
import sqlDrizzle = require('@webhook-idempotency/sql/drizzle');
import sqlPostgres = require('@webhook-idempotency/sql/postgres');

const store: core.Store = new core.InMemoryStore();
export const middleware = expressAdapter.idempotent({
  store,
  provider: 'acme',
  key: (req) => req.get('x-id'),
});
export const plugin: typeof fastifyAdapter.fastifyIdempotency = fastifyAdapter.default;
export const koa = koaAdapter.idempotent({
  store,
  provider: 'acme',
  key: (ctx) => ctx.get('x-id'),
});
export const sqlStore = sql.SqlStore;
export const admin = sql.ReceiptsAdmin;
export const orms = [sqlKysely.fromKysely, sqlDrizzle.fromDrizzle, sqlPostgres.fromPostgres];
export const stuck: number = cli.ExitCode.STUCK;
export const runCli: typeof cli.run = cli.run;
export const engine = adapter.createEngine({ store, provider: 'acme', key: () => '1' });
export const cases = testing.conformanceCases.length;
export const route = fetchAdapter.withIdempotency(
  { store, provider: 'acme', key: (request) => request.headers.get('x-id') },
  () => new Response('ok'),
);
export const lambda = lambdaAdapter.withIdempotency(
  { store, provider: 'acme', key: (request) => request.headers['x-id'] },
  () => ({ statusCode: 200, body: 'ok' }),
);
export const hono = honoAdapter.idempotent({
  store,
  provider: 'acme',
  key: (c) => c.req.header('x-id'),
});
export const relay: typeof bullmqBridge.bullmqRelay = bullmqBridge.bullmqRelay;
export const redisStore: typeof redis.RedisStore = redis.RedisStore;
export const dynamodbStore: typeof dynamodb.DynamoDBStore = dynamodb.DynamoDBStore;
export const kitDelivery: signers.Delivery = signers.github({ secret: 'x' }).event({ zen: 'hi' });
