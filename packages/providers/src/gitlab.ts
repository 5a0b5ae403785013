/** @module GitLab preset: the `Idempotency-Key` header as the key, `X-Gitlab-Token` compared with the secret token. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { requireOptions, requireString } from './options';
import { header } from './request-fields';
import { safeVerify } from './safe-verify';
import { secretDigest, secretEquals } from './signature';

/** Options of {@link gitlab}. */
export interface GitLabOptions {
  /** The webhook's secret token (project, group or system hook settings). Required. */
  secretToken: string;
}

/**
 * GitLab webhook preset (push, merge request, pipeline, issue hooks).
 *
 * - **Key**: the `Idempotency-Key` header (added to GitLab in 2024; the first release that sends it
 *   is UNCONFIRMED here), which GitLab keeps when a delivery is sent again, from the hook's Recent
 *   events or its API. A GitLab that sends none is answered 400 (`ERR_IDEMPOTENCY_KEY_MISSING`):
 *   upgrade, or give the adapter your own `provider` and `key` instead of this preset.
 * - **Authentication**: `X-Gitlab-Token` must equal the secret token, compared in constant time
 *   (both sides hashed first). The token is not a signature: it covers neither the body nor the
 *   key, so anyone who saw one delivery can send others; keep the endpoint on HTTPS.
 * - **Retention**: 7 days. After 4 failures in a row GitLab disables the hook for a backoff that
 *   grows to a day at most, and after 40 for good; a delivery can be resent by hand from the
 *   hook's Recent events.
 *
 * @example
 * const preset = providers.gitlab({ secretToken: process.env.GITLAB_WEBHOOK_TOKEN! });
 * @throws {ConfigError} naming `secretToken` when invalid.
 * @see docs/providers.md#gitlab
 */
export function gitlab(options: GitLabOptions): ProviderPreset {
  const { secretToken } = requireOptions('gitlab', options);
  const expected = secretDigest(
    requireString('gitlab', 'secretToken', secretToken, 'the secret token as "secretToken"'),
  );
  return {
    provider: 'gitlab',
    keyDescription: 'Idempotency-Key header',
    needsRawBody: false,
    retentionDays: 7,
    key(request) {
      const id = header(request, 'idempotency-key');
      return id === undefined || id === '' ? undefined : id;
    },
    verify: safeVerify(function verifyGitLab(request) {
      const given = header(request, 'x-gitlab-token');
      return given !== undefined && secretEquals(given, expected);
    }),
  };
}
