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
import type { EventMap } from '@webhook-idempotency/providers';
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

  // Typed with GitHub's own payloads (`@octokit/openapi-webhooks-types`, types only).
  const preset = providers.github<GitHubEvents>({ secret });
  const app = express();
  app.post(
    '/github/webhook',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset }),
    async (req, res) => {
      // GitHub names the event in `X-GitHub-Event`; the body is that event's payload.
      const name = req.get('x-github-event');
      switch (name) {
        case 'push': {
          const push: EventMap<typeof preset>['push'] = req.body;
          const repository = push.repository.full_name;
          const commits = push.commits.length;
          // Idempotent on the delivery id: written once, whatever runs it again.
          await redis.hsetnx(
            pushes,
            req.get('x-github-delivery')!,
            JSON.stringify({ repository, commits }),
          );
          res.json({ repository, commits });
          return;
        }
        default:
          res.status(202).json({ ignored: name });
      }
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
