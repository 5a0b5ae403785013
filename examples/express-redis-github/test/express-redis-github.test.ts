/** The Express + Redis + GitHub example over HTTP, on the run's Redis: signed pushes counted once, however often GitHub redelivers. */
import { randomUUID } from 'node:crypto';
import * as signers from '@webhook-idempotency/providers/testing';
import Redis from 'ioredis';
import request from 'supertest';
import { createGitHubApp, type GitHubApp } from '../src/app';

const secret = 'redis-example-secret';
const hook = signers.github({ secret, url: 'https://ci.example.com/github/webhook' });

describe('express-redis-github example', () => {
  let redis: Redis;
  let github: GitHubApp;
  let prefix: string;

  beforeAll(() => {
    redis = new Redis(process.env.WI_REDIS_URL!);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = `example:${randomUUID()}:`;
    github = createGitHubApp({ redis, secret, prefix });
  });

  /** A push of `commits` commits to acme/shop, as GitHub delivers it under the id `delivery`. */
  const push = (delivery: string, commits: number) =>
    hook.event(
      {
        ref: 'refs/heads/main',
        repository: { full_name: 'acme/shop' },
        commits: Array.from({ length: commits }, (_, i) => ({ id: `c${i}` })),
      },
      { event: 'push', delivery },
    );
  const send = (delivery: signers.Delivery) =>
    signers.send.supertest(request(github.app), delivery);

  it('counts a push once however often it is redelivered, concurrent retries included', async () => {
    const delivery = push('d-1', 3);
    const first = await send(delivery).expect(200, { repository: 'acme/shop', commits: 3 });
    const retries = await Promise.all(Array.from({ length: 10 }, () => send(delivery.retry())));
    for (const res of retries) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 200) {
        expect(res.headers['idempotent-replayed']).toBe('true');
        expect(res.body).toEqual(first.body);
      }
    }
    await send(push('d-2', 2)).expect(200);
    expect(await github.stats()).toEqual({ 'acme/shop': 5 });
    // The receipts are in Redis under the app's prefix, expiring after 30 days.
    const ttl = await redis.pttl(`${prefix}receipts:{github\u0000d-1}`);
    expect(ttl).toBeGreaterThan(29 * 86_400_000);
  });

  it('acknowledges another event with 200 before any claim: no receipt, nothing recorded', async () => {
    const star = hook.event({ action: 'created', starred_at: null }, { event: 'star' });
    await send(star).expect(200, { received: true });
    expect(await redis.keys(`${prefix}receipts:*`)).toEqual([]);
    expect(await github.stats()).toEqual({});
  });

  it('refuses a forged signature before any claim', async () => {
    await send(push('d-forged', 1).forged()).expect(401);
    expect(await redis.exists(`${prefix}receipts:{github\u0000d-forged}`)).toBe(0);
    expect(await github.stats()).toEqual({});
  });

  it('a push applied but not recorded (the process died in between) runs again and changes nothing', async () => {
    const delivery = push('d-3', 4);
    await send(delivery).expect(200);
    // The receipt is lost (as after a crash before it was written): the redelivery runs again.
    await redis.del(`${prefix}receipts:{github\u0000d-3}`);
    const again = await send(delivery.retry()).expect(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await github.stats()).toEqual({ 'acme/shop': 4 });
  });
});
