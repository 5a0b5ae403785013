/** @module Sentry (integration platform) preset: the `Request-ID` header as the key, `Sentry-Hook-Signature` verified on the raw body. */
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { header } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link sentry}: `clientSecret`, the integration's Client Secret (Settings, Developer
 * Settings, your integration), or several; or `resolveSecret`, a lookup per request.
 */
export type SentryOptions = SecretOptions<'clientSecret', string>;

/** A Sentry integration delivery as this preset reads it: its `action`. The event name is the `Sentry-Hook-Resource` header. */
export interface SentryMinimalEvent {
  readonly action: string;
}

/** Sentry's resources: any name, each a {@link SentryMinimalEvent}. */
export type SentryMinimalEvents = Record<string, SentryMinimalEvent>;

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
export function sentry<Events extends object = SentryMinimalEvents>(
  options: SentryOptions,
): TypedPreset<Events> {
  const { clientSecret, resolveSecret } = requireOptions('sentry', options);
  const { preset } = hmacPreset(
    {
      provider: 'sentry',
      secret: clientSecret,
      resolveSecret,
      signatureHeader: 'sentry-hook-signature',
      key: 'request-id',
      keyDescription: 'Request-ID header',
      retentionDays: 7,
    },
    {
      names: { preset: 'sentry', option: 'clientSecret', what: 'the integration client secret' },
    },
  );
  return typed<Events>(preset, (request) => header(request, 'sentry-hook-resource'));
}
