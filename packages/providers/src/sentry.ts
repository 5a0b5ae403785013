/** @module Sentry (integration platform) preset: the `Request-ID` header as the key, `Sentry-Hook-Signature` verified on the raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { hmac } from './hmac';
import { requireOptions, requireString } from './options';

/** Options of {@link sentry}. */
export interface SentryOptions {
  /** The integration's Client Secret (Settings, Developer Settings, your integration). Required. */
  clientSecret: string;
}

/**
 * Sentry integration-platform webhook preset (internal or public integrations: `installation`,
 * `issue`, `event_alert`, `metric_alert`, `error`, `comment` resources).
 *
 * - **Key**: the `Request-ID` header, Sentry's id for the request. It is **not covered by the
 *   signature** (only the body is), and neither are `Sentry-Hook-Resource` (which resource sent
 *   it: route on it) and `Sentry-Hook-Timestamp`: a captured request re-sent with a fresh
 *   `Request-ID` passes and runs again. Keep the handler's own state checks.
 * - **Signature**: `Sentry-Hook-Signature` is hex HMAC-SHA256 of the raw body under the client
 *   secret.
 * - **Retention**: 7 days (Sentry expects an answer within 1 second; whether and how it retries is
 *   UNCONFIRMED here).
 *
 * @example
 * const preset = providers.sentry({ clientSecret: process.env.SENTRY_CLIENT_SECRET! });
 * @throws {ConfigError} naming `clientSecret` when invalid.
 * @see docs/providers.md#sentry
 */
export function sentry(options: SentryOptions): ProviderPreset {
  const { clientSecret } = requireOptions('sentry', options);
  return hmac({
    provider: 'sentry',
    secret: requireString(
      'sentry',
      'clientSecret',
      clientSecret,
      'the integration client secret as "clientSecret"',
    ),
    signatureHeader: 'sentry-hook-signature',
    key: 'request-id',
    keyDescription: 'Request-ID header',
    retentionDays: 7,
  });
}
