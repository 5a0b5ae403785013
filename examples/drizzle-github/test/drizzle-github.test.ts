/** The Drizzle + GitHub example over HTTP: signed pushes counted once, however often GitHub redelivers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { createGitHubApp, type GitHubApp } from '../src/app';

const secret = 'drizzle-example-secret';
const hook = signers.github({ secret, url: 'https://ci.example.com/github/webhook' });

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
  const stats = () => github.stats();

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
    expect(stats()).toEqual([{ repository: 'acme/shop', commits: 5 }]);
    expect(github.count('pushes')).toBe(2);
  });

  it('refuses a bad signature before any claim: nothing counted, no receipt', async () => {
    const delivery = push('d-3', 4);
    await send(delivery.forged()).expect(401);
    expect(stats()).toEqual([]);
    expect(github.count('webhook_receipts')).toBe(0);
    // The genuine delivery of the same id still runs.
    await send(delivery).expect(200);
    expect(stats()).toEqual([{ repository: 'acme/shop', commits: 4 }]);
  });

  it('acknowledges another event with 200 before any claim: no receipt, nothing counted', async () => {
    const star = hook.event({ action: 'created', starred_at: null }, { event: 'star' });
    await send(star).expect(200, { received: true });
    expect(github.count('webhook_receipts')).toBe(0);
    expect(stats()).toEqual([]);
  });
});
