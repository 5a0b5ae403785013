/**
 * @module A GitHub webhook on Express with its receipts in Redis (`RedisStore` over ioredis). The
 * GitHub preset checks `X-Hub-Signature-256` on the raw bytes before any claim and keys receipts
 * on `X-GitHub-Delivery`. The store is not transactional, so the app's own write is idempotent by
 * itself: the push is recorded with `HSETNX` under its delivery id, and a run again after a crash
 * between that write and the receipt changes nothing.
 */
import express from 'express';
import type Redis from 'ioredis';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotent, idempotencyErrors, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { RedisStore } from '@webhook-idempotency/redis';

/** Options of {@link createGitHubApp}. */
export interface GitHubAppOptions {
  /** The app's ioredis client: receipts and the app's data share it, under their own prefixes. */
  redis: Redis;
  /** The webhook's secret, as set in the repository's webhook settings. */
  secret: string;
  /** Put before every key of this app (default `'github-app:'`). */
  prefix?: string;
}

/** The app and what it has counted. */
export interface GitHubApp {
  app: express.Express;
  /** Commits counted per repository, from the recorded pushes. */
  stats(): Promise<Record<string, number>>;
}

/** Builds the app with `POST /github/webhook`. */
export function createGitHubApp(options: GitHubAppOptions): GitHubApp {
  const { redis, secret, prefix = 'github-app:' } = options;
  const pushes = `${prefix}pushes`;
  const store = new RedisStore(redis, {
    prefix: `${prefix}receipts:`,
    retentionSeconds: 30 * 86_400, // GitHub redelivers on request, for recent deliveries
  });

  // Each `X-GitHub-Event` its handler, typed with GitHub's own payloads
  // (`@octokit/openapi-webhooks-types`, types only); other events are answered 200, nothing stored.
  const github = routes(providers.github<GitHubEvents>({ secret }), {
    push: async (push, { key }) => {
      const repository = push.repository.full_name;
      const commits = push.commits.length;
      // Idempotent on the delivery id (the receipt's key): written once, whatever runs it again.
      await redis.hsetnx(pushes, key.externalId, JSON.stringify({ repository, commits }));
      return { repository, commits }; // the answer: 200 JSON, stored, replayed
    },
  });
  const app = express();
  app.post(
    '/github/webhook',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset: github }),
  );
  app.use(idempotencyErrors()); // a Redis outage: 503 with Retry-After, GitHub's cue to retry

  return {
    app,
    async stats() {
      const totals: Record<string, number> = {};
      for (const value of Object.values(await redis.hgetall(pushes))) {
        const push = JSON.parse(value) as { repository: string; commits: number };
        totals[push.repository] = (totals[push.repository] ?? 0) + push.commits;
      }
      return totals;
    },
  };
}
