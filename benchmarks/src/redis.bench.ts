/**
 * @module The Redis store beside the SQL stores, in the same table and run: first delivery (claim +
 * complete) and replay (a completed receipt), `guard.run` over `RedisStore` on ioredis, against
 * ioredis sending the store's own scripts (`EVALSHA`, the same arguments) by hand, in interleaved
 * rounds on one durable `redis-server` (append-only file, `appendfsync always`, as the storm
 * proves it). 8 clients.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { RedisStore } from '@webhook-idempotency/redis';
import Redis from 'ioredis';
import { startDurableRedis } from '../../test-support/durable-redis';
import { SCRIPTS } from '../../packages/redis/src/scripts';
import { freshId, loops, type Row, spread } from './sql.bench';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REPLAY_KEYS = 10_000;
const RESPONSE = JSON.stringify({ received: true });
const PREFIX = 'webhook_receipts:';
const replayId = () => String(1 + Math.floor(Math.random() * REPLAY_KEYS));
const nonce = () => randomBytes(12).toString('base64url');
type Workload = 'first' | 'replay';

/** The Redis rows: servers started and removed here. */
export async function redisRows(dir: string): Promise<Row[]> {
  const server = await startDurableRedis(join(dir, 'redis'));
  const redis = new Redis(server.url);
  try {
    const guard = new IdempotencyGuard(new RedisStore(redis));
    const handler = async () => ({ received: true });
    for (let i = 1; i <= REPLAY_KEYS; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_, k) =>
          guard.run(new RequestKey('bench', String(i + k)), handler),
        ),
      );
    const evalsha = (script: (typeof SCRIPTS)[keyof typeof SCRIPTS], id: string, argv: string[]) =>
      redis.call('EVALSHA', [script.sha, '1', `${PREFIX}{bench\u0000${id}}`, ...argv]) as Promise<
        unknown[]
      >;
    const claim = (id: string) => evalsha(SCRIPTS.claim, id, ['0', '', nonce()]);
    const anchor = (workload: Workload) =>
      workload === 'replay'
        ? loops(claim, replayId)
        : loops(async (id) => {
            const [, , , , claimedAt] = await claim(id);
            await evalsha(SCRIPTS.complete, id, ['1', String(claimedAt), RESPONSE, '', nonce()]);
          }, freshId);
    const ours = (workload: Workload) =>
      loops(
        (id) => guard.run(new RequestKey('bench', id), handler),
        workload === 'first' ? freshId : replayId,
      );
    const samples = new Map<Workload, { anchor: number[]; ours: number[] }>([
      ['first', { anchor: [], ours: [] }],
      ['replay', { anchor: [], ours: [] }],
    ]);
    for (let round = 0; round < ROUNDS; round++)
      for (const [workload, sample] of samples) {
        sample.anchor.push(await anchor(workload));
        sample.ours.push(await ours(workload));
      }
    return [...samples].map(([workload, { anchor: a, ours: o }]) => ({
      database: 'Redis 7 (AOF, appendfsync always)',
      anchorName: 'ioredis, the same scripts by hand',
      workload,
      anchor: spread(a),
      ours: spread(o),
      ratio: spread(o.map((value, i) => value / a[i]!)),
    }));
  } finally {
    redis.disconnect();
    await server.destroy();
  }
}
