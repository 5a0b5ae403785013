/** @module Bitbucket Cloud preset: the `X-Request-UUID` header as the key, `X-Hub-Signature` (`sha256=`) verified on the raw body. */
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { header } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link bitbucket}: `secret`, the webhook's secret (Repository settings, Webhooks),
 * or several; or `resolveSecret`, a lookup per request.
 */
export type BitbucketOptions = SecretOptions<'secret', string>;

/** A Bitbucket delivery: this preset reads nothing of its body (the event name is the `X-Event-Key` header). */
export type BitbucketMinimalEvent = Readonly<Record<string, unknown>>;

/** Bitbucket's events: any name, each a {@link BitbucketMinimalEvent}. */
export type BitbucketMinimalEvents = Record<string, BitbucketMinimalEvent>;

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
export function bitbucket<Events extends object = BitbucketMinimalEvents>(
  options: BitbucketOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret } = requireOptions('bitbucket', options);
  const { preset } = hmacPreset(
    {
      provider: 'bitbucket',
      secret,
      resolveSecret,
      signatureHeader: 'x-hub-signature',
      prefix: 'sha256=',
      key: 'x-request-uuid',
      keyDescription: 'X-Request-UUID header',
      retentionDays: 7,
    },
    { names: { preset: 'bitbucket', option: 'secret', what: 'the webhook secret' } },
  );
  return typed<Events>(preset, (request) => header(request, 'x-event-key'));
}
