/**
 * Which clients the store takes, recognised by shape and typed without `any`: an ioredis `Redis`
 * and `Cluster`, a node-redis client and cluster (none connected here: recognising needs no
 * server). The cluster clients route each script by its one key; purge scans every master.
 */
import Redis, { Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { RedisStore } from '../src';
import { commanderFor } from '../src/connection';

describe('the clients RedisStore takes', () => {
  const ioredis = new Redis({ lazyConnect: true });
  const ioCluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  const nodeRedis = createClient();
  const nodeCluster = createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:1' }] });
  afterAll(() => {
    ioredis.disconnect();
    ioCluster.disconnect();
  });

  it.each([
    ['an ioredis Redis', ioredis, 'ioredis', false],
    ['an ioredis Cluster', ioCluster, 'ioredis', true],
    ['a node-redis client', nodeRedis, 'node-redis', false],
    ['a node-redis cluster', nodeCluster, 'node-redis', true],
  ] as const)('%s', (_name, client, kind, cluster) => {
    expect(new RedisStore(client).capabilities).toEqual({
      crossProcess: true,
      transactional: false,
      clock: 'store',
      ignoredCounts: false,
    });
    expect(commanderFor(client)).toMatchObject({ kind, cluster });
  });

  it('a node-redis client that is not connected is taken, and its calls fail (the guard makes that a StoreError)', async () => {
    const store = new RedisStore(createClient());
    await expect(
      store.find({ provider: 'p', externalId: '1' }, { now: Date.now() }),
    ).rejects.toThrow(/closed/i);
  });
});
