/** @module GitLab preset: the `Idempotency-Key` header as the key, `X-Gitlab-Token` compared with the secret token. */
import type { PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { secretMember } from './keyring-members';
import { tokenHeaderMatch, tokenKeyring } from './token-header';
import { headerId, idPart, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link gitlab}: `secretToken`, the webhook's secret token (project, group or system
 * hook settings), or several while you change it; or `resolveSecret`, a lookup per request.
 */
export type GitLabOptions = SecretOptions<'secretToken', string>;

/** A GitLab delivery as this preset reads it: `object_kind` (the event name, `push`, `merge_request`). */
export interface GitLabMinimalEvent {
  readonly object_kind: string;
}

/** GitLab's events: any name, each a {@link GitLabMinimalEvent}. */
export type GitLabMinimalEvents = Record<string, GitLabMinimalEvent>;

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
export const gitlab: PresetFactory<GitLabOptions, GitLabMinimalEvents> =
  /* @__PURE__ */ secretMember<GitLabOptions, Buffer, KeyedRow<Buffer>>({
    provider: 'gitlab',
    secret: [tokenKeyring, 'secretToken', 'the secret token'],
    family: keyedPreset,
    row: {
      keyDescription: 'Idempotency-Key header',
      needsRawBody: false,
      retentionDays: 7,
      id: /* @__PURE__ */ headerId('idempotency-key'),
      signedWith: /* @__PURE__ */ tokenHeaderMatch('x-gitlab-token'),
      eventType: (request) => idPart(jsonBody(request)?.object_kind),
    },
  });
