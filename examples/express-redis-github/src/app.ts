/**
 * @module A GitHub webhook on Express with its receipts in Redis (`RedisStore` over ioredis). The
 * GitHub preset checks `X-Hub-Signature-256` on the raw bytes before any claim and keys receipts
 * on `X-GitHub-Delivery`. The store is not transactional, so the app's own write is idempotent by
 * itself: the push is recorded with `HSETNX` under its delivery id, and a run again after a crash
 * between that write and the receipt changes nothing.
 */
import express from 'express';
import type Redis from 'ioredis';
import { idempotent, idempotencyErrors, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
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

interface PushEvent {
  repository?: { full_name?: string };
  commits?: unknown[];
}

/** Builds the app with `POST /github/webhook`. */
export function createGitHubApp(options: GitHubAppOptions): GitHubApp {
  const { redis, secret, prefix = 'github-app:' } = options;
  const pushes = `${prefix}pushes`;
  const store = new RedisStore(redis, {
    prefix: `${prefix}receipts:`,
    retentionSeconds: 30 * 86_400, // GitHub redelivers on request, for recent deliveries
  });

  const app = express();
  app.post(
    '/github/webhook',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset: providers.github({ secret }) }),
    async (req, res) => {
      if (req.get('x-github-event') !== 'push') {
        res.status(202).json({ ignored: req.get('x-github-event') });
        return;
      }
      const event = req.body as PushEvent;
      const repository = event.repository?.full_name ?? 'unknown';
      const commits = event.commits?.length ?? 0;
      // Idempotent on the delivery id: written once, whatever runs it again.
      await redis.hsetnx(
        pushes,
        req.get('x-github-delivery')!,
        JSON.stringify({ repository, commits }),
      );
      res.json({ repository, commits });
    },
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
