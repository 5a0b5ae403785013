/**
 * @module What both Workers do with a GitHub push, once per delivery: ask the build service to
 * build it (an outbound call that may be slow or fail), then record the push in D1.
 */
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import type { D1DatabaseLike } from '@webhook-idempotency/sql/d1';

// #region env
/**
 * The Worker's bindings, as wrangler.toml declares them. (With `wrangler types` or
 * @cloudflare/workers-types, `DB: D1Database` is the same binding.)
 */
export interface Env {
  DB: D1DatabaseLike;
  /** A secret: `wrangler secret put GITHUB_WEBHOOK_SECRET`. */
  GITHUB_WEBHOOK_SECRET: string;
  /** Where builds are requested. */
  BUILD_HOOK_URL: string;
}
// #endregion env

/** GitHub's push payload, as its OpenAPI description types it (`@octokit/openapi-webhooks-types`). */
export type Push = GitHubEvents['push'];

// #region record-push
/** Requests a build of the pushed commit, then records the push; the answer names the build. */
export async function recordPush(
  env: Env,
  delivery: string,
  push: Push,
): Promise<{ build: string }> {
  const requested = await fetch(env.BUILD_HOOK_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ repository: push.repository.full_name, commit: push.after }),
  });
  // A failure is thrown: the receipt is marked failed and GitHub's redelivery runs this again.
  if (!requested.ok) throw new Error(`the build service answered ${requested.status}`);
  const { build } = (await requested.json()) as { build: string };
  await env.DB.prepare(
    'INSERT INTO pushes (delivery, repository, commit_sha, build) VALUES (?, ?, ?, ?)',
  )
    .bind(delivery, push.repository.full_name, push.after, build)
    .run();
  return { build }; // the route's answer: 200 JSON, stored, replayed
}
// #endregion record-push
