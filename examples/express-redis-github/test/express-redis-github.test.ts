/** The Express + Redis + GitHub example over HTTP, on the run's Redis: signed pushes counted once, however often GitHub redelivers. */
import { createHmac, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { createGitHubApp, type GitHubApp } from '../src/app';

const secret = 'redis-example-secret';

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

  const push = (delivery: string, commits: number, key = secret) => {
    const body = JSON.stringify({
      repository: { full_name: 'acme/shop' },
      commits: Array.from({ length: commits }, (_, i) => ({ id: `c${i}` })),
    });
    const signature = `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
    return request(github.app)
      .post('/github/webhook')
      .set('content-type', 'application/json')
      .set('x-github-event', 'push')
      .set('x-github-delivery', delivery)
      .set('x-hub-signature-256', signature)
      .send(body);
  };

  it('counts a push once however often it is redelivered, concurrent retries included', async () => {
    const first = await push('d-1', 3).expect(200, { repository: 'acme/shop', commits: 3 });
    const retries = await Promise.all(Array.from({ length: 10 }, () => push('d-1', 3)));
    for (const res of retries) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 200) {
        expect(res.headers['idempotent-replayed']).toBe('true');
        expect(res.body).toEqual(first.body);
      }
    }
    await push('d-2', 2).expect(200);
    expect(await github.stats()).toEqual({ 'acme/shop': 5 });
    // The receipts are in Redis under the app's prefix, expiring after 30 days.
    const ttl = await redis.pttl(`${prefix}receipts:{github\u0000d-1}`);
    expect(ttl).toBeGreaterThan(29 * 86_400_000);
  });

  it('refuses a forged signature before any claim', async () => {
    await push('d-forged', 1, 'not-the-secret').expect(401);
    expect(await redis.exists(`${prefix}receipts:{github\u0000d-forged}`)).toBe(0);
    expect(await github.stats()).toEqual({});
  });

  it('a push applied but not recorded (the process died in between) runs again and changes nothing', async () => {
    await push('d-3', 4).expect(200);
    // The receipt is lost (as after a crash before it was written): the redelivery runs again.
    await redis.del(`${prefix}receipts:{github\u0000d-3}`);
    const again = await push('d-3', 4).expect(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await github.stats()).toEqual({ 'acme/shop': 4 });
  });
});
