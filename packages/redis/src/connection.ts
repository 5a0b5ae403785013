/**
 * @module Recognises the Redis client the user passed (ioredis or node-redis, a single server or
 * a cluster) by its shape, and gives the store one way to send a command: routed by key, and one
 * per master for SCAN. No client library is imported: both are optional peers.
 */
import { ConfigError } from '@webhook-idempotency/core';

/** Per-command options a node-redis client honours: the store drops a command it gave up on. */
interface NodeRedisCommandOptions {
  abortSignal?: AbortSignal;
}

/** An ioredis `Redis` (ioredis 5 or 6), as far as the store uses it. */
export interface IoredisClient {
  call(command: string, args: string[]): Promise<unknown>;
  readonly status: string;
}

/** An ioredis `Cluster`: commands are routed by key, SCAN runs on each master. */
export interface IoredisCluster extends IoredisClient {
  nodes(role: 'master'): IoredisClient[];
}

/** A node-redis client (`createClient()` of `redis` / `@redis/client` 5 or later), connected. */
export interface NodeRedisClient {
  sendCommand(args: string[], options?: NodeRedisCommandOptions): Promise<unknown>;
  readonly isOpen: boolean;
}

/** A node-redis cluster (`createCluster()`), connected. */
export interface NodeRedisCluster {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: NodeRedisCommandOptions,
  ): Promise<unknown>;
  readonly masters: readonly unknown[];
  nodeClient(node: never): Promise<NodeRedisClient>;
  readonly isOpen: boolean;
}

/** Any client the store accepts. */
export type RedisClient = IoredisClient | IoredisCluster | NodeRedisClient | NodeRedisCluster;

/** Sends one command and resolves with its reply; `signal` aborts it if it was not sent yet. */
export type Send = (args: string[], signal: AbortSignal) => Promise<unknown>;

/** How the store reaches Redis, whichever client it was given. */
export interface Commander {
  /** Which client library (for messages). */
  readonly kind: 'ioredis' | 'node-redis';
  /** True for a cluster client. */
  readonly cluster: boolean;
  /** Sends `args`, routed to the node that holds `key`. */
  send(key: string, args: string[], signal: AbortSignal): Promise<unknown>;
  /** One sender per node to SCAN: the server, or every master of a cluster. */
  scanNodes(): Promise<Send[]>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

const isIoredis = (value: unknown): value is IoredisClient =>
  isObject(value) && typeof value.call === 'function' && typeof value.status === 'string';

const isIoredisCluster = (value: unknown): value is IoredisCluster =>
  isIoredis(value) && typeof (value as { nodes?: unknown }).nodes === 'function';

const isNodeRedisCluster = (value: unknown): value is NodeRedisCluster =>
  isObject(value) &&
  typeof value.sendCommand === 'function' &&
  typeof value.nodeClient === 'function' &&
  Array.isArray(value.masters);

const isNodeRedis = (value: unknown): value is NodeRedisClient =>
  isObject(value) && typeof value.sendCommand === 'function' && typeof value.isOpen === 'boolean';

function ioredisCommander(client: IoredisClient): Commander {
  const on =
    (node: IoredisClient): Send =>
    ([command, ...args]) =>
      node.call(command!, args);
  const cluster = isIoredisCluster(client);
  return {
    kind: 'ioredis',
    cluster,
    send: (_key, args, signal) => on(client)(args, signal),
    scanNodes: async () => (cluster ? client.nodes('master').map(on) : [on(client)]),
  };
}

function nodeRedisCommander(client: NodeRedisClient): Commander {
  const send: Send = (args, signal) => client.sendCommand(args, { abortSignal: signal });
  return {
    kind: 'node-redis',
    cluster: false,
    send: (_key, args, signal) => send(args, signal),
    scanNodes: async () => [send],
  };
}

function nodeRedisClusterCommander(cluster: NodeRedisCluster): Commander {
  return {
    kind: 'node-redis',
    cluster: true,
    send: (key, args, signal) => cluster.sendCommand(key, false, args, { abortSignal: signal }),
    scanNodes: async () => {
      const clients = await Promise.all(
        cluster.masters.map((master) => cluster.nodeClient(master as never)),
      );
      return clients.map(
        (node): Send =>
          (args, signal) =>
            node.sendCommand(args, { abortSignal: signal }),
      );
    },
  };
}

function describe(client: unknown): string {
  if (client === null) return 'null';
  if (!isObject(client)) return typeof client;
  return (client as { constructor?: { name?: string } }).constructor?.name ?? 'object';
}

/**
 * The commander for `client`, recognised by shape: an ioredis `Redis` or `Cluster`, a node-redis
 * client or cluster.
 * @throws {ConfigError} naming `client` for anything else, and what was passed.
 */
export function commanderFor(client: unknown): Commander {
  if (isIoredis(client)) return ioredisCommander(client);
  if (isNodeRedisCluster(client)) return nodeRedisClusterCommander(client);
  if (isNodeRedis(client)) return nodeRedisCommander(client);
  throw new ConfigError(
    'client',
    `must be an ioredis Redis or Cluster, or a node-redis client or cluster (createClient(), createCluster()); got ${describe(client)}`,
  );
}
