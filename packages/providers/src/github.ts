/** @module GitHub preset: `X-GitHub-Delivery` as the key, `X-Hub-Signature-256` verified on the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { booleanOption, requireOptions, requireString } from './options';
import { header } from './request-fields';
import { safeVerify } from './safe-verify';
import { hmacMatches } from './signature';

/** Options of {@link github}. */
export interface GitHubOptions {
  /** The webhook secret configured on the hook or app. Required. */
  secret: string;
  /**
   * Key on `X-GitHub-Hook-ID:X-GitHub-Delivery` instead of the delivery GUID alone. The GUID is
   * shared by every hook subscribed to the event, so turn this on when one endpoint serves several
   * hooks or apps and each must act. Defaults to `false`.
   */
  perHook?: boolean;
}

const PREFIX = 'sha256=';

/**
 * GitHub webhook preset (PROVIDERS.md §3.5).
 *
 * - **Key**: `X-GitHub-Delivery` (a GUID per event, kept by a manual redelivery), or
 *   `hookId:delivery` with `perHook: true`.
 * - **Pass-through**: none.
 * - **Signature**: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, rawBody)>`, constant time.
 *   The legacy SHA-1 `X-Hub-Signature` is not accepted. No timestamp is signed, so there is no
 *   tolerance: the delivery GUID is the replay protection.
 * - **Retention**: 7 days. GitHub does not retry by itself; failed deliveries can be redelivered by
 *   hand for 3 days, so 7 days covers that with a margin.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.github({ secret: process.env.GITHUB_WEBHOOK_SECRET! });
 * preset.key(request); // '72d3162e-cc78-11e3-81ab-4c9367dc0958'
 * @throws {ConfigError} naming `secret` or `perHook` when invalid.
 * @see docs/providers.md#github
 */
export function github(options: GitHubOptions): ProviderPreset {
  const { secret, perHook } = requireOptions('github', options);
  const key = requireString('github', 'secret', secret, 'the webhook secret as "secret"');
  const scoped = booleanOption('github', 'perHook', perHook, false);

  return {
    provider: 'github',
    keyDescription: scoped
      ? 'X-GitHub-Hook-ID and X-GitHub-Delivery headers'
      : 'X-GitHub-Delivery header',
    needsRawBody: true,
    retentionDays: 7,
    key(request) {
      const delivery = header(request, 'x-github-delivery');
      if (delivery === undefined || delivery === '') return undefined;
      if (!scoped) return delivery;
      const hook = header(request, 'x-github-hook-id');
      return hook === undefined || hook === '' ? undefined : `${hook}:${delivery}`;
    },
    verify: safeVerify(function verifyGitHub(request) {
      const given = header(request, 'x-hub-signature-256');
      if (request.rawBody === undefined || given === undefined || !given.startsWith(PREFIX))
        return false;
      return hmacMatches(key, [request.rawBody], [given.slice(PREFIX.length)], 'hex');
    }),
  };
}
