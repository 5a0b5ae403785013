/**
 * The Redis store: receipts in Redis over the client the application already has (ioredis or
 * node-redis, a server or a cluster), claims, take-overs and fenced writes in server-side
 * scripts timed by the server's clock. Not transactional with SQL data (docs/stores.md).
 * @module @webhook-idempotency/redis
 */
export { RedisStore } from './redis-store';
export type { RedisStoreOptions } from './options';
export { DEFAULT_COMMAND_TIMEOUT_MS } from './options';
export { DEFAULT_PREFIX } from './keys';
export { RedisCommandTimeout } from './commands';
export { UnexpectedReply } from './receipt';
export type {
  IoredisClient,
  IoredisCluster,
  NodeRedisClient,
  NodeRedisCluster,
  RedisClient,
} from './connection';
