/** The Drizzle + GitHub example over HTTP: signed pushes counted once, however often GitHub redelivers. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createGitHubApp, type GitHubApp } from '../src/app';

const secret = 'drizzle-example-secret';

describe('drizzle-github example', () => {
  let dir: string;
  let github: GitHubApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'drizzle-github-'));
    github = await createGitHubApp({ file: join(dir, 'github.sqlite'), secret });
  });

  afterEach(() => {
    github.close();
    rmSync(dir, { recursive: true, force: true });
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
  const stats = () => github.stats();

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
    expect(stats()).toEqual([{ repository: 'acme/shop', commits: 5 }]);
    expect(github.count('pushes')).toBe(2);
  });

  it('refuses a bad signature before any claim: nothing counted, no receipt', async () => {
    await push('d-3', 4, 'not-the-secret').expect(401);
    expect(stats()).toEqual([]);
    expect(github.count('webhook_receipts')).toBe(0);
    // The genuine delivery of the same id still runs.
    await push('d-3', 4).expect(200);
    expect(stats()).toEqual([{ repository: 'acme/shop', commits: 4 }]);
  });
});
