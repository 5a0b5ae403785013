/** @module Bitbucket Cloud preset: the `X-Request-UUID` header as the key, `X-Hub-Signature` (`sha256=`) verified on the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';

/** Options of {@link bitbucket}. */
export interface BitbucketOptions {
  /** The webhook's secret (Repository settings, Webhooks). Required. */
  secret: string;
}

/**
 * Bitbucket Cloud webhook preset (repository push, pull request, issue events).
 *
 * - **Key**: the `X-Request-UUID` header, Bitbucket's id for the request. It is **not covered by
 *   the signature** (only the body is), nor are `X-Hook-UUID`, `X-Event-Key` and
 *   `X-Attempt-Number`: a captured request re-sent with a fresh UUID passes and runs again. That
 *   a retry keeps the UUID is UNCONFIRMED here (its `X-Attempt-Number` counts the attempts).
 * - **Signature**: `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the raw body>` under the webhook
 *   secret. No timestamp is signed.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here).
 *
 * @example
 * const preset = providers.bitbucket({ secret: process.env.BITBUCKET_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#bitbucket
 */
export function bitbucket(options: BitbucketOptions): ProviderPreset {
  const { secret } = requireOptions('bitbucket', options);
  return hmac({
    provider: 'bitbucket',
    secret: requireString('bitbucket', 'secret', secret, 'the webhook secret as "secret"'),
    signatureHeader: 'x-hub-signature',
    prefix: 'sha256=',
    key: 'x-request-uuid',
    keyDescription: 'X-Request-UUID header',
    retentionDays: 7,
  });
}
