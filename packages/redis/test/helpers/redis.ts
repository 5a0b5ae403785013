/**
 * The Redis of a test run (jest's global setup starts it: WI_REDIS_URL), reached with either
 * client, and the store conformance suite over it: each case gets a prefix of its own (an empty
 * store), and time passes by shifting the stored claim and finish times back (the server's clock
 * cannot be faked).
 */
import { randomUUID } from 'node:crypto';
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { RedisStore, type RedisClient, type RedisStoreOptions } from '../../src';

/** The run's Redis URL; a missing server is an error, never a skip. */
export function redisUrl(): string {
  const url = process.env.WI_REDIS_URL;
  if (!url)
    throw new Error(
      'WI_REDIS_URL is not set: run the Redis tests through jest, whose global setup starts Redis',
    );
  return url;
}

/** A client of one kind, opened and closed by the caller. */
export interface Opened {
  readonly client: RedisClient;
  /** Sends one command (on a single server). */
  command(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** The two clients the store supports, by name. */
export const CLIENTS: Record<'ioredis' | 'node-redis', (url?: string) => Promise<Opened>> = {
  ioredis: async (url = redisUrl()) => {
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    return {
      client,
      command: ([name, ...args]) => client.call(name!, args),
      close: async () => void client.disconnect(),
    };
  },
  'node-redis': async (url = redisUrl()) => {
    const client = createClient({ url });
    client.on('error', () => undefined);
    await client.connect();
    return {
      client,
      command: (args) => client.sendCommand(args),
      close: async () => void client.destroy(),
    };
  },
};

/** Every key under `prefix` (SCAN, as a test sees them). */
export async function keysUnder(opened: Opened, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = (await opened.command([
      'SCAN',
      cursor,
      'MATCH',
      `${prefix}*`,
      'COUNT',
      '1000',
    ])) as [string, string[]];
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

const SHIFT = `
redis.call('HINCRBY', KEYS[1], 'c', -tonumber(ARGV[1]))
if redis.call('HEXISTS', KEYS[1], 'f') == 1 then redis.call('HINCRBY', KEYS[1], 'f', -tonumber(ARGV[1])) end
return 1`;

/** Makes `ms` pass for the receipts under `prefix`: their claim and finish times move back. */
export async function shift(opened: Opened, prefix: string, ms: number): Promise<void> {
  for (const key of await keysUnder(opened, prefix))
    await opened.command(['EVAL', SHIFT, '1', key, String(ms)]);
}

/** Deletes every key under `prefix`. */
export async function clear(opened: Opened, prefix: string): Promise<void> {
  for (const key of await keysUnder(opened, prefix)) await opened.command(['DEL', key]);
}

/** A prefix no other test uses. */
export const freshPrefix = (label: string): string => `wi-test:${label}:${randomUUID()}:`;

/**
 * Registers the store conformance suite on one client kind: the client is opened before the
 * file's tests and closed after; each case has a prefix of its own, cleared after it.
 */
export function redisConformance(
  name: string,
  open: () => Promise<Opened>,
  options: Omit<RedisStoreOptions, 'prefix'> = {},
): () => Opened {
  let opened: Opened | undefined;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.close();
  });
  const current = () => {
    if (!opened) throw new Error('client not open yet');
    return opened;
  };
  runStoreConformance({
    name,
    makeStore() {
      const prefix = freshPrefix('conformance');
      const store = new RedisStore(current().client, { ...options, prefix });
      return {
        store,
        advance: (ms) => shift(current(), prefix, ms),
        close: () => clear(current(), prefix),
      };
    },
  });
  return current;
}
