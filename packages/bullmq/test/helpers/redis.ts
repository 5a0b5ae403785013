/** BullMQ connection options for the Redis server jest's global setup started (WI_REDIS_URL). */
import type { ConnectionOptions } from 'bullmq';

/** Connection options for the run's Redis; a missing server is an error, never a skip. */
export function redisConnection(url = process.env.WI_REDIS_URL): ConnectionOptions {
  if (!url)
    throw new Error(
      'WI_REDIS_URL is not set: run the BullMQ tests through jest, whose global setup starts Redis',
    );
  const parsed = new URL(url);
  // A worker's blocking connection must never give up on a command (BullMQ requires null).
  return { host: parsed.hostname, port: Number(parsed.port), maxRetriesPerRequest: null };
}
