/**
 * @module Clerk and Resend: both send their webhooks through Svix (`svix-id`, `svix-timestamp`,
 * `svix-signature`, a `whsec_` secret), so each is the Standard Webhooks preset under its own name.
 */
import type { TypedPreset } from './events';
import { requireOptions } from './options';
import type { SecretOptions } from './secrets';
import { standardWebhooksAs, type StandardWebhooksMinimalEvents } from './standard-webhooks';

/**
 * Options of {@link clerk} and {@link resend}: `secret`, the endpoint's signing secret, `whsec_…`
 * (Clerk's `CLERK_WEBHOOK_SIGNING_SECRET`, Resend's `RESEND_WEBHOOK_SECRET`), or several while you
 * rotate it; or `resolveSecret`, a lookup per request.
 */
export type SvixSenderOptions = SecretOptions<'secret', string> & {
  /** Accepted distance between `svix-timestamp` and now. Defaults to 300 (Svix's 5 minutes). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

function svixSender<Events extends object>(
  name: string,
  options: SvixSenderOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret, toleranceSeconds, clock } = requireOptions(name, options);
  return standardWebhooksAs<Events>(name, {
    ...(resolveSecret === undefined
      ? { secret: secret as NonNullable<typeof secret> }
      : { resolveSecret }),
    provider: name,
    ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
    ...(clock === undefined ? {} : { clock }),
  });
}

/**
 * Clerk webhook preset (user, session and organization events, sent through Svix).
 *
 * - **Key**: `svix-id`, the message id Svix keeps across its retries.
 * - **Signature**: `svix-signature` (`v1,<base64>` entries), HMAC-SHA256 with the base64 secret
 *   after `whsec_` over `${svix-id}.${svix-timestamp}.${rawBody}`; the timestamp within 5 minutes.
 * - **Retention**: 30 days: Svix retries for about 28 hours, and a message can be replayed from
 *   Clerk's dashboard after that.
 *
 * @example
 * const preset = providers.clerk({ secret: process.env.CLERK_WEBHOOK_SIGNING_SECRET! });
 * - **Events**: `eventType(request)` is the payload's `type` (`user.created`); Clerk's own
 *   `WebhookEvent` map with `clerk<ClerkEvents>(…)` and `ClerkEvents` from
 *   `@webhook-idempotency/providers/types/clerk`.
 *
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function clerk<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('clerk', options);
}

/**
 * Resend webhook preset (email events such as `email.delivered`, sent through Svix). The same
 * headers, signature, key and retention as {@link clerk}. Resend's own `WebhookEventPayload` map
 * with `resend<ResendEvents>(…)` and `ResendEvents` from `@webhook-idempotency/providers/types/resend`.
 *
 * @example
 * const preset = providers.resend({ secret: process.env.RESEND_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function resend<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('resend', options);
}
