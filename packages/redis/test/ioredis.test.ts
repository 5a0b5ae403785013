/** RedisStore over an ioredis client: the whole store contract, on the run's real Redis. */
import { CLIENTS, redisConformance } from './helpers/redis';

redisConformance('RedisStore (ioredis)', () => CLIENTS.ioredis());
