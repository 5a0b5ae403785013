/** RedisStore over a node-redis client: the whole store contract, on the run's real Redis. */
import { CLIENTS, redisConformance } from './helpers/redis';

redisConformance('RedisStore (node-redis)', () => CLIENTS['node-redis']());
